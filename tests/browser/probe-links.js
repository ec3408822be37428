/* Injected into a copy of a graph drawn with --nameattr by svg-browser.sh:
 * defines fkpwn() (what a hostile nameattr calls), clicks every frame and
 * hovers it, letting only a javascript: link act (any other navigation is
 * cancelled), then writes what it saw as JSON into <text id="fk-links">:
 * the links' protocols as Chromium resolves them, the number of on*
 * attributes among the frames, and whether fkpwn ran. */
window.fkpwn = function(n) { document.documentElement.setAttribute("data-fkpwn", String(n)); };
window.addEventListener("load", function() {
	var out = { links: [], handlers: 0 };
	function protocol(a) {
		var h = a.href && a.href.baseVal !== undefined ? a.href.baseVal : a.getAttribute("href");
		try { return new URL(h, document.baseURI).protocol; } catch (e) { return "bad:"; }
	}
	document.addEventListener("click", function(e) {
		var a = e.target.closest && e.target.closest("a");
		if (a && protocol(a) !== "javascript:") e.preventDefault();
	}, true);
	try {
		var all = document.getElementById("frames").getElementsByTagName("*");
		for (var i = 0; i < all.length; i++)
			for (var j = 0; j < all[i].attributes.length; j++)
				if (/^on/i.test(all[i].attributes[j].name)) out.handlers++;
		var as = document.getElementsByTagName("a");
		for (var k = 0; k < as.length; k++) out.links.push(protocol(as[k]));
		var gs = document.getElementById("frames").children;
		for (var m = 0; m < gs.length; m++) {
			var r = gs[m].querySelector("rect");
			["mouseover", "mouseout", "click"].forEach(function(t) {
				r.dispatchEvent(new MouseEvent(t, { bubbles: true, cancelable: true, view: window }));
			});
		}
	} catch (e) {
		out.error = String(e);
	}
	setTimeout(function() {
		out.pwned = document.documentElement.getAttribute("data-fkpwn") || "none";
		var t = document.createElementNS("http://www.w3.org/2000/svg", "text");
		t.setAttribute("id", "fk-links");
		t.textContent = JSON.stringify(out);
		document.documentElement.appendChild(t);
	}, 500);
});
