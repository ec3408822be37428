// Writes node.cpuprofile, the V8 fixture of tests/v8.sh: run
// `node --cpu-prof --cpu-prof-interval 2000 --cpu-prof-name node.cpuprofile gen.js` here.
'use strict';
function spin(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s += (i * i) % 7;
  return s;
}
function outer(ms) {
  const end = Date.now() + ms;
  let s = 0;
  while (Date.now() < end) s += spin(20000);
  return s;
}
const work = [100, 60].map(function (ms) { return outer(ms); });
(() => { const a = []; for (let i = 0; i < 200000; i++) a.push({ i }); return a.length; })();
console.log(work.length);
