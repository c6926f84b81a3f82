"""Check the offline site in `site/`: static checks of every page, then headless Chromium on a local server.

Static: a page per processed notebook, every internal link (and #anchor) resolves, nothing is loaded from another
host, each notebook's figures are embedded, each `show_doc` entry has its heading, math is on the pages and MathJax
is vendored. Browser (playwright-core from npm driving Chromium, served by `python -m http.server` on 127.0.0.1): every
page loads without console errors, failed or external requests, broken images or links; MathJax typesets
(`mjx-container` elements, no TeX errors); screenshots go to `site/screenshots/`.
    NODE_PATH=<dir with playwright-core> python .ci/check_site.py [--site site] [--proc _proc] [--chromium PATH]
"""
import argparse, json, os, re, shutil, socket, subprocess, sys, tempfile, time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit, unquote

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))
from build_site import directives, front_matter, output_name  # noqa: E402  (the builder's page names and cell options)

SCREENSHOT_PAGES = ("index.html", "gauss_legendre.html", "explanation.html", "plots.html")
CHROMIUM_FLAGS = [  # --user-data-dir is a new temporary folder, given to playwright's launchPersistentContext
   "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


class Page(HTMLParser):
    "Ids, links and resources of one HTML page."
    def __init__(self):
        super().__init__()
        self.ids, self.links, self.resources, self.images, self.headings = set(), [], [], 0, []
        self._heading = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a: self.ids.add(a["id"])
        if tag == "a" and a.get("href"): self.links.append(a["href"])
        if tag in ("script", "img", "iframe") and a.get("src"): self.resources.append(a["src"])
        if tag == "link" and a.get("href"): self.resources.append(a["href"])
        if tag == "img" and (a.get("src") or "").startswith("data:image/"): self.images += 1
        if re.fullmatch(r"h[1-6]", tag): self._heading = ""

    def handle_data(self, data):
        if self._heading is not None: self._heading += data

    def handle_endtag(self, tag):
        if re.fullmatch(r"h[1-6]", tag) and self._heading is not None:
            self.headings.append(self._heading.replace("¶", "").strip()); self._heading = None


def hidden_output(cell) -> bool:
    "Whether the cell's outputs are left off the page (`#| output: false`, `#| include: false`, `#| hide`)."
    opts, _ = directives(cell.source)
    return opts.get("output") == "false" or opts.get("include") == "false" or "hide" in opts


def is_external(url: str) -> bool:
    return bool(urlsplit(url).scheme) or url.startswith("//")


def static_checks(site: Path, proc: Path) -> tuple[list[str], set[str]]:
    "Problems found by reading the HTML (empty when the site is sound), and the pages that have math."
    problems, parsed, math_pages = [], {}, set()
    notebooks = sorted(p for p in proc.glob("*.ipynb") if not p.name.startswith(("_", ".")))
    expected = {}
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        expected[output_name(path, front_matter(nb))] = nb
    for name in expected:
        if not (site / name).is_file(): problems.append(f"missing page {name}")
    if not (site / "mathjax" / "tex-svg-full.js").is_file(): problems.append("MathJax is not vendored into site/mathjax")
    for html_file in sorted(site.glob("*.html")):
        page = Page(); page.feed(html_file.read_text(encoding="utf-8")); parsed[html_file.name] = page
    for name, page in parsed.items():
        for url in page.resources:
            if is_external(url) and not url.startswith("data:"): problems.append(f"{name}: loads {url} from another host")
            elif not is_external(url) and not (site / unquote(urlsplit(url).path)).is_file():
                problems.append(f"{name}: missing resource {url}")
        for url in page.links:
            if is_external(url) or url.startswith("mailto:"): continue
            parts = urlsplit(url)
            target = unquote(parts.path) or name
            if target not in parsed: problems.append(f"{name}: broken link {url}"); continue
            if parts.fragment and unquote(parts.fragment) not in parsed[target].ids:   # the page opens at its top
                print(f"WARN: {name}: link {url} points at a missing anchor (nbdev links private names show_doc skips)")
    for name, nb in expected.items():
        page = parsed.get(name)
        if page is None: continue
        shown = [c for c in nb.cells if c.cell_type == "code" and not hidden_output(c)]
        n_fig = sum(any(k.startswith("image/") for k in o.get("data", {})) for c in shown for o in c.get("outputs", []))
        if page.images < n_fig: problems.append(f"{name}: {page.images} embedded figures, the notebook has {n_fig}")
        for c in nb.cells:
            m = re.search(r"^show_doc\(([\w.]+)", c.source, re.M) if c.cell_type == "code" else None
            if m and m.group(1).split(".")[-1] not in {h.split(".")[-1] for h in page.headings}:
                problems.append(f"{name}: no API entry for {m.group(1)}")
        has_math = any(c.cell_type == "markdown" and re.search(r"\$[^$]+\$", c.source) for c in nb.cells)
        text = (site / name).read_text(encoding="utf-8")
        if has_math: math_pages.add(name)
        if has_math and not re.search(r"\$[^$<>]+\$|\\\(", text): problems.append(f"{name}: the math is missing")
        if 'src="mathjax/tex-svg-full.js"' not in text: problems.append(f"{name}: does not load the vendored MathJax")
    return problems, math_pages


BROWSER_JS = r"""
const { chromium } = require('playwright-core');
const [base, pagesJson, shotDir, exe, flagsJson, profile] = process.argv.slice(2);
const pages = JSON.parse(pagesJson), shots = new Set(JSON.parse(process.env.SHOTS));
(async () => {
  const ctx = await chromium.launchPersistentContext(profile, {executablePath: exe, headless: true,
      args: JSON.parse(flagsJson).filter(f => f !== '--headless'), viewport: {width: 1280, height: 900}});
  const results = [];
  for (const name of pages) {
    const page = await ctx.newPage(), problems = [];
    page.on('console', m => { if (m.type() === 'error') problems.push('console error: ' + m.text()); });
    page.on('pageerror', e => problems.push('page error: ' + e.message));
    page.on('requestfailed', r => { if (!r.url().startsWith(base) || !r.failure()) return;
                                     problems.push('request failed: ' + r.url() + ' ' + r.failure().errorText); });
    page.on('response', r => { if (r.status() >= 400) problems.push('HTTP ' + r.status() + ': ' + r.url()); });
    await page.route('**/*', route => {
      const url = route.request().url();
      if (url.startsWith(base) || url.startsWith('data:')) return route.continue();
      problems.push('external request blocked: ' + url); return route.abort();
    });
    let math = 0, mathErrors = 0, brokenImages = 0, links = [];
    try {
      await page.goto(base + name, {waitUntil: 'load', timeout: 30000});
      await page.waitForFunction(() => window.MathJax && MathJax.startup && MathJax.startup.promise, null, {timeout: 20000});
      await page.evaluate(() => MathJax.startup.promise);
      math = await page.locator('mjx-container').count();
      mathErrors = await page.locator('[data-mjx-error], mjx-merror').count();
      brokenImages = await page.evaluate(() => [...document.images].filter(i => !i.complete || i.naturalWidth === 0).length);
      links = await page.evaluate((base) => [...document.querySelectorAll('a[href]')]
          .map(a => new URL(a.getAttribute('href'), location.href)).filter(u => u.href.startsWith(base))
          .map(u => decodeURIComponent(u.pathname.slice(1)) || 'index.html'), base);
      if (shots.has(name)) {
        const stem = name.replace(/\.html$/, '');
        await page.screenshot({path: shotDir + '/' + stem + '.png'});
        const first = page.locator('mjx-container[display="true"]').first();
        if (await first.count()) {
          await first.scrollIntoViewIfNeeded();
          await page.screenshot({path: shotDir + '/' + stem + '-math.png'});
        }
        const fig = page.locator('.output_area img').first();
        if (await fig.count()) {
          await fig.scrollIntoViewIfNeeded();
          await page.screenshot({path: shotDir + '/' + stem + '-figure.png'});
        }
      }
    } catch (e) { problems.push('failed to load: ' + e.message.split('\n')[0]); }
    results.push({name, problems, math, mathErrors, brokenImages, links});
    await page.close();
  }
  await ctx.close();
  console.log(JSON.stringify(results));
})().catch(e => { console.error(e); process.exit(1); });
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); return s.getsockname()[1]


def browser_checks(site: Path, chromium: str, pages: list[str], math_pages: set[str]) -> list[str]:
    "Load `pages` in headless Chromium from a local server; return the problems found."
    shots = site / "screenshots"
    shots.mkdir(exist_ok=True)
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory",
                               str(site)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    profile = tempfile.mkdtemp(prefix="shapnb-chromium-")
    try:
        for _ in range(50):
            try: socket.create_connection(("127.0.0.1", port), timeout=0.2).close(); break
            except OSError: time.sleep(0.1)
        with tempfile.NamedTemporaryFile("w", suffix=".js", dir=profile, delete=False) as f: f.write(BROWSER_JS)
        env = dict(os.environ, SHOTS=json.dumps([p for p in SCREENSHOT_PAGES if p in pages]))
        run = subprocess.run(["node", f.name, f"http://127.0.0.1:{port}/", json.dumps(pages), str(shots), chromium,
                              json.dumps(CHROMIUM_FLAGS), os.path.join(profile, "user-data")],
                             capture_output=True, text=True, env=env, timeout=600)
        if run.returncode != 0: return [f"the browser check failed to run:\n{run.stderr.strip()[-3000:]}"]
        results = json.loads(run.stdout.strip().splitlines()[-1])
    finally:
        server.terminate(); server.wait()
        shutil.rmtree(profile, ignore_errors=True)
    problems = []
    for r in results:
        problems += [f"{r['name']}: {p}" for p in r["problems"]]
        problems += [f"{r['name']}: broken link to {u}" for u in sorted(set(r["links"])) if not (site / u).is_file()]
        if r["brokenImages"]: problems.append(f"{r['name']}: {r['brokenImages']} images did not load")
        if r["mathErrors"]: problems.append(f"{r['name']}: {r['mathErrors']} TeX errors in the typeset math")
        if r["name"] in math_pages and r["math"] == 0: problems.append(f"{r['name']}: MathJax typeset nothing")
    typeset = sum(r["math"] for r in results)
    print(f"browser: {len(results)} pages loaded, {typeset} formulas typeset, screenshots in {shots.relative_to(ROOT)}"
          if shots.is_relative_to(ROOT) else f"browser: {len(results)} pages, {typeset} formulas")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=ROOT / "site")
    parser.add_argument("--proc", type=Path, default=ROOT / "_proc")
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", "/usr/bin/chromium"))
    parser.add_argument("--no-browser", action="store_true", help="static checks only")
    args = parser.parse_args()
    problems, math_pages = static_checks(args.site, args.proc)
    pages = sorted(p.name for p in args.site.glob("*.html"))
    print(f"static: {len(pages)} pages checked")
    if not args.no_browser:
        problems += browser_checks(args.site, args.chromium, pages, math_pages)
    for p in problems[:40]: print("FAIL:", p)
    if len(problems) > 40: print(f"... and {len(problems) - 40} more problems")
    if problems: sys.exit(1)
    print("site OK")


if __name__ == "__main__":
    main()
