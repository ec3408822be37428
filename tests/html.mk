# tests of the html report: read-back and page in tests/html.sh, the page in
# headless Chromium in tests/browser/html-browser.sh (skipped without it).
TESTS += tests/html.sh tests/browser/html-browser.sh tests/browser/report-browser.sh
EXTRA_DIST += tests/html.sh tests/data/html/hostile.txt tests/data/html/recursion.txt tests/browser/html-browser.sh \
	tests/browser/cdp.py tests/browser/report-browser.sh tests/browser/report-lib.sh
