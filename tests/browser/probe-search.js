/* Injected into a copy of a graph by svg-browser.sh, loaded with ?s=: once
 * the graph's own init() has run the URL's search, writes the highlighted
 * frames and the "Matched" line as JSON into <text id="fk-search">. */
window.addEventListener("load", function() {
	setTimeout(function() {
		var hl = [], gs = document.getElementById("frames").children;
		for (var i = 0; i < gs.length; i++)
			if (gs[i].querySelector("rect").getAttribute("fill") === FK_SEARCHCOLOR)
				hl.push(gs[i].querySelector("title").textContent.split(" (")[0]);
		var t = document.createElementNS("http://www.w3.org/2000/svg", "text");
		t.setAttribute("id", "fk-search");
		t.textContent = JSON.stringify({ highlighted: hl.sort().join(","),
			matched: document.getElementById("matched").textContent });
		document.documentElement.appendChild(t);
	}, 100);
});
