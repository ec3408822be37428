/* Injected into a copy of a graph by svg-browser.sh: drives the embedded
 * script as a user would (keys, clicks, hovers) and writes what it saw as
 * JSON into <text id="fk-test-result">, which chromium --dump-dom prints. */
window.addEventListener("load", function() {
	var out = {};
	function rect(name) {
		var gs = document.getElementById("frames").children;
		for (var i = 0; i < gs.length; i++)
			if (gs[i].querySelector("title").textContent.split(" (")[0] === name)
				return gs[i].querySelector("rect");
		return null;
	}
	function key(code) {
		var e = new KeyboardEvent("keydown", { ctrlKey: true, keyCode: code, bubbles: true });
		if (e.keyCode !== code) Object.defineProperty(e, "keyCode", { value: code });
		window.dispatchEvent(e);
	}
	function mouse(type, el) {
		el.dispatchEvent(new MouseEvent(type, { bubbles: true, cancelable: true, view: window }));
	}
	function highlighted() {
		var r = [], gs = document.getElementById("frames").children;
		for (var i = 0; i < gs.length; i++)
			if (gs[i].querySelector("rect").getAttribute("fill") === "rgb(230,0,230)")
				r.push(gs[i].querySelector("title").textContent.split(" (")[0]);
		return r.sort().join(",");
	}
	try {
		if (!fk.details) init();
		out.frames = document.getElementById("frames").children.length;
		out.tooltip = rect("b").parentNode.querySelector("title").textContent;
		window.prompt = function() { return "^(b|c)$"; };
		key(70);
		out.search1 = highlighted();
		out.matched1 = document.getElementById("matched").textContent;
		out.searchbtn = document.getElementById("search").textContent;
		key(70); /* second Ctrl-F resets the search */
		out.reset = highlighted() + "|" + document.getElementById("search").textContent;
		window.prompt = function() { return "^(A|b)$"; };
		key(70);
		out.search2 = highlighted();
		key(73); /* Ctrl-I: ignore case */
		out.search2i = highlighted();
		out.matched2i = document.getElementById("matched").textContent;
		key(73);
		key(70);
		mouse("click", rect("a"));
		out.zoom_a = rect("a").getAttribute("width") + " " + rect("b").getAttribute("width") + " " +
			(rect("other").parentNode.classList.contains("hide") ? "other-hidden" : "other-shown") + " " +
			(rect("main").parentNode.classList.contains("parent") ? "main-parent" : "main-not-parent") + " " +
			(document.getElementById("unzoom").classList.contains("hide") ? "unzoom-hidden" : "unzoom-shown");
		mouse("mouseover", rect("b"));
		out.details_zoomed = document.getElementById("details").textContent;
		mouse("mouseout", rect("b"));
		out.details_out = "[" + document.getElementById("details").textContent + "]";
		mouse("click", document.getElementById("unzoom"));
		out.unzoom = rect("a").getAttribute("width") + " " + rect("b").getAttribute("width") + " " +
			(rect("other").parentNode.classList.contains("hide") ? "other-hidden" : "other-shown");
		mouse("mouseover", rect("d"));
		out.details = document.getElementById("details").textContent;
		out.label_a = rect("a").parentNode.querySelector("text").textContent;
	} catch (err) {
		out.error = String(err);
	}
	var t = document.createElementNS("http://www.w3.org/2000/svg", "text");
	t.setAttribute("id", "fk-test-result");
	t.textContent = JSON.stringify(out);
	document.documentElement.appendChild(t);
}, false);
