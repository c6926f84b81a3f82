"""Check the offline site in `site/`: static checks of every page, then headless Chromium on a local server.

Static: a page per sidebar entry and a sidebar entry per notebook (`nbs/sidebar.yml`, the file Quarto reads too),
every page's sidebar has those groups in that order, previous/next links follow it, the "on this page" links resolve,
every internal link (and #anchor) resolves, nothing is loaded from another host, no page shows a path of the build
machine (the repo root, /root/, /tmp/, /work/, site-packages: stored notebook outputs such as warnings carry them),
each notebook's figures are embedded, each `show_doc` entry has its heading, math is on the pages, MathJax and
MiniSearch are vendored and the search index covers every page. Browser (playwright-core from npm driving Chromium,
served by `python -m http.server` on 127.0.0.1): every page loads without console errors, failed or external requests,
broken images or links; MathJax typesets (`mjx-container` elements, no TeX errors); typing a query into the search box
lists a result linking to the page expected (served, and opened from disk); screenshots go to `site/screenshots/`.
    NODE_PATH=<dir with playwright-core> python .ci/check_site.py [--site site] [--proc _proc] [--sidebar nbs/sidebar.yml]
                                                               [--chromium PATH] [--no-browser]
"""
import argparse, html, json, os, re, shutil, socket, subprocess, sys, tempfile, time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit, unquote

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))
from build_site import (SIDEBAR, directives, front_matter, output_name,   # noqa: E402  (the builder's names and rules)
                        page_clashes, sidebar_groups, sidebar_problems)

SCREENSHOTS = ("index", "03_gauss_legendre", "60_getting_started")   # notebooks whose pages must be photographed
MORE_SCREENSHOTS = ("04_explanation", "41_explain")                  # and these when they exist (API pages)
SEARCH_PROBE = ("bootstrap", "22_bootstrap")                         # typing this query must list that notebook's page
MACHINE_PATHS = ("/root/", "/tmp/", "/work/", "site-packages")        # and the repo root: none may be on a page
CHROMIUM_FLAGS = [  # --user-data-dir is a new temporary folder, given to playwright's launchPersistentContext
   "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


class Page(HTMLParser):
    "Ids, links, resources, headings, sidebar, previous/next and table-of-contents links of one HTML page."
    def __init__(self):
        super().__init__()
        self.ids, self.links, self.resources, self.images, self.headings = set(), [], [], 0, []
        self.nav, self.rel, self.toc = [], {}, []
        self._heading, self._in_nav, self._section, self._in_toc = None, False, None, False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if "id" in a: self.ids.add(a["id"])
        if tag == "nav" and a.get("id") == "sidebar": self._in_nav = True
        if tag == "details" and self._in_nav: self._section = a.get("data-section")
        if tag == "aside" and "toc" in classes: self._in_toc = True
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
            if self._in_nav: self.nav.append((self._section, a["href"]))
            if self._in_toc: self.toc.append(a["href"])
            if a.get("rel") in ("prev", "next"): self.rel[a["rel"]] = a["href"]
        if tag in ("script", "img", "iframe") and a.get("src"): self.resources.append(a["src"])
        if tag == "link" and a.get("href"): self.resources.append(a["href"])
        if tag == "img" and (a.get("src") or "").startswith("data:image/"): self.images += 1
        if re.fullmatch(r"h[1-6]", tag): self._heading = ""

    def handle_data(self, data):
        if self._heading is not None: self._heading += data

    def handle_endtag(self, tag):
        if re.fullmatch(r"h[1-6]", tag) and self._heading is not None:
            self.headings.append(self._heading.replace("¶", "").strip()); self._heading = None
        if tag == "nav": self._in_nav = False
        if tag == "details": self._section = None
        if tag == "aside": self._in_toc = False


def hidden_output(cell) -> bool:
    "Whether the cell's outputs are left off the page (`#| output: false`, `#| include: false`, `#| hide`)."
    opts, _ = directives(cell.source)
    return opts.get("output") == "false" or opts.get("include") == "false" or "hide" in opts


def is_external(url: str) -> bool:
    return bool(urlsplit(url).scheme) or url.startswith("//")


def machine_paths(name: str, text: str) -> list[str]:
    "Paths of the build machine shown in a page (or the search index), each with the text around it."
    text = re.sub(r"data:[\w/+.-]+;base64,[A-Za-z0-9+/=]+", "data:", text)   # base64 can spell /tmp/ by chance
    pattern = "|".join(re.escape(p) for p in sorted({str(ROOT) + "/", *MACHINE_PATHS}, key=len, reverse=True))
    found = {}
    for m in re.finditer(pattern, text):
        around = re.sub(r"<[^>]*>|^[^<>]*>|<[^<>]*$", "", text[max(0, m.start() - 160):m.end() + 120])   # cut tags too
        around = " ".join(html.unescape(around).split())
        found.setdefault(around[-200:], m.group(0))
    return [f"{name}: shows the build machine's path {p!r}: …{s}…" for s, p in found.items()]


def expected_site(proc: Path, sidebar: Path, nbs: Path | None) -> tuple[list[str], list[tuple], dict, dict]:
    "Problems of the sidebar itself, the expected sidebar [(section, page)], notebooks by page, pages by notebook stem."
    groups = sidebar_groups(sidebar)
    problems = [f"sidebar: {p}" for p in sidebar_problems(groups, proc, nbs, sidebar)]
    nav, notebooks, pages = [], {}, {}
    for g in groups:
        for stem, _ in g["entries"]:
            path = proc / f"{stem}.ipynb"
            if not path.is_file(): continue
            nb = nbformat.read(path, as_version=4)
            name = output_name(path, front_matter(nb))
            nav.append((g["section"], name)); notebooks[name] = nb; pages[stem] = name
    problems += [f"sidebar: {p}" for p in page_clashes(pages)]
    return problems, nav, notebooks, pages


def static_checks(site: Path, proc: Path, sidebar: Path, nbs: Path | None) -> tuple[list[str], set[str], dict]:
    "Problems found by reading the HTML (empty when the site is sound), the pages that have math, pages by notebook."
    problems, nav, expected, pages = expected_site(proc, sidebar, nbs)
    parsed, math_pages = {}, set()
    order = [name for _, name in nav]
    for name in expected:
        if not (site / name).is_file(): problems.append(f"missing page {name}")
    for rel in ("mathjax/tex-svg-full.js", "minisearch/index.js", "site.js", "site.css", "search.json"):
        if not (site / rel).is_file(): problems.append(f"site/{rel} is missing")
    for html_file in sorted(site.glob("*.html")):
        text = html_file.read_text(encoding="utf-8")
        page = Page(); page.feed(text); parsed[html_file.name] = page
        problems += machine_paths(html_file.name, text)
    if (site / "search.json").is_file():
        index_text = (site / "search.json").read_text(encoding="utf-8")
        problems += machine_paths("search.json", index_text)
        indexed = {d["page"] for d in json.loads(index_text)["docs"]}
        problems += [f"search.json: {name} is not indexed" for name in order if name not in indexed]
    for name in sorted(set(parsed) - set(expected)): problems.append(f"{name}: a page for no sidebar entry")
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
        if name not in expected: continue
        if page.nav != nav:   # the sidebar: groups and order of sidebar.yml, on every page
            diff = next((i for i, (a, b) in enumerate(zip(page.nav, nav)) if a != b), min(len(page.nav), len(nav)))
            problems.append(f"{name}: sidebar differs from {sidebar.name} at entry {diff + 1}: "
                            f"{page.nav[diff] if diff < len(page.nav) else 'nothing'} instead of "
                            f"{nav[diff] if diff < len(nav) else 'nothing'}")
        i = order.index(name)
        for rel, want in (("prev", order[i - 1] if i else None), ("next", order[i + 1] if i + 1 < len(order) else None)):
            if page.rel.get(rel) != want: problems.append(f"{name}: {rel} link is {page.rel.get(rel)}, expected {want}")
        for url in page.toc:
            if not url.startswith("#") or unquote(url[1:]) not in page.ids: problems.append(f"{name}: contents link {url} leads nowhere")
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
        if '<h2 id="' in text and not page.toc: problems.append(f"{name}: has sections but no table of contents")
        if 'src="minisearch/index.js"' not in text or 'id="search-input"' not in text:
            problems.append(f"{name}: has no search box")
    return problems, math_pages, pages


BROWSER_JS = r"""
const { chromium } = require('playwright-core');
const [base, pagesJson, shotDir, exe, flagsJson, profile, siteDir] = process.argv.slice(2);
const pages = JSON.parse(pagesJson), shots = JSON.parse(process.env.SHOTS), probe = JSON.parse(process.env.PROBE);

async function photograph(page, name, bottom) {
  const stem = shotDir + '/' + name.replace(/\.html$/, '');
  await page.screenshot({path: stem + '.png'});
  for (const [suffix, selector] of [['-math', 'mjx-container[display="true"]'], ['-figure', '.output_area img'],
                                    ['-api', '.celltag_doc']]) {
    const el = page.locator(selector).first();
    if (await el.count()) {
      await el.evaluate(e => e.scrollIntoView({block: 'start'}));
      await page.evaluate(() => window.scrollBy(0, -80));
      await page.screenshot({path: stem + suffix + '.png'});
    }
  }
  if (bottom) {
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.screenshot({path: stem + '-bottom.png'});
  }
}

// type the query into the search box like a person; a result must link to the expected page and lead there
async function search(ctx, url, label, shot) {
  const page = await ctx.newPage(), problems = [];
  page.on('pageerror', e => problems.push('page error: ' + e.message));
  page.on('console', m => { if (m.type() === 'error') problems.push('console error: ' + m.text()); });
  page.on('response', r => { if (r.status() >= 400) problems.push('HTTP ' + r.status() + ': ' + r.url()); });
  let hrefs = [];
  try {
    await page.goto(url, {waitUntil: 'load', timeout: 30000});
    await page.click('#search-input');
    await page.keyboard.type(probe.query, {delay: 40});
    const hit = '#search-results a[href="' + probe.page + '"], #search-results a[href^="' + probe.page + '#"]';
    try { await page.waitForSelector(hit, {timeout: 15000}); } catch (e) { /* reported below with what was listed */ }
    hrefs = await page.$$eval('#search-results a', as => as.map(a => a.getAttribute('href')));
    if (shot) await page.screenshot({path: shotDir + '/search.png'});
    if (!hrefs.some(h => h === probe.page || h.startsWith(probe.page + '#'))) {
      const said = await page.locator('#search-results').innerText().catch(() => '');
      problems.push(`typing "${probe.query}" listed no link to ${probe.page} (results: ${JSON.stringify(hrefs.slice(0, 5))}` +
                    (hrefs.length ? '' : `, box says ${JSON.stringify(said.slice(0, 200))}`) + ')');
    } else {
      await Promise.all([page.waitForURL(u => u.pathname.endsWith('/' + probe.page), {timeout: 15000}),
                         page.locator(hit).first().click()]);
    }
  } catch (e) { problems.push('search failed: ' + e.message.split('\n')[0]); }
  await page.close();
  return {name: 'search (' + label + ')', problems, math: 0, mathErrors: 0, brokenImages: 0, links: [], results: hrefs};
}

(async () => {
  const ctx = await chromium.launchPersistentContext(profile, {executablePath: exe, headless: true,
      args: JSON.parse(flagsJson).filter(f => f !== '--headless'), viewport: {width: 1360, height: 900}});
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
      if (name in shots) await photograph(page, name, shots[name]);
    } catch (e) { problems.push('failed to load: ' + e.message.split('\n')[0]); }
    results.push({name, problems, math, mathErrors, brokenImages, links});
    await page.close();
  }
  results.push(await search(ctx, base + 'index.html', 'served over http', true));
  results.push(await search(ctx, 'file://' + siteDir + '/index.html', 'opened from disk', false));
  await ctx.close();
  console.log(JSON.stringify(results));
})().catch(e => { console.error(e); process.exit(1); });
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); return s.getsockname()[1]


def browser_checks(site: Path, chromium: str, pages: list[str], math_pages: set[str], by_stem: dict) -> list[str]:
    "Load `pages` in headless Chromium from a local server, search, take screenshots; return the problems found."
    problems = []
    shots = site / "screenshots"
    if shots.exists(): shutil.rmtree(shots)
    shots.mkdir()
    wanted = {by_stem[s]: s in SCREENSHOTS for s in SCREENSHOTS + MORE_SCREENSHOTS if s in by_stem}
    problems += [f"no page for {s}.ipynb to photograph" for s in SCREENSHOTS if s not in by_stem]
    query, stem = SEARCH_PROBE
    if stem not in by_stem: problems.append(f"search check: no page for {stem}.ipynb")
    probe = {"query": query, "page": by_stem.get(stem, f"{stem}.html")}
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory",
                               str(site)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    profile = tempfile.mkdtemp(prefix="shapnb-chromium-")
    try:
        for _ in range(50):
            try: socket.create_connection(("127.0.0.1", port), timeout=0.2).close(); break
            except OSError: time.sleep(0.1)
        with tempfile.NamedTemporaryFile("w", suffix=".js", dir=profile, delete=False) as f: f.write(BROWSER_JS)
        env = dict(os.environ, SHOTS=json.dumps(wanted), PROBE=json.dumps(probe))
        run = subprocess.run(["node", f.name, f"http://127.0.0.1:{port}/", json.dumps(pages), str(shots), chromium,
                              json.dumps(CHROMIUM_FLAGS), os.path.join(profile, "user-data"), str(site.resolve())],
                             capture_output=True, text=True, env=env, timeout=600)
        if run.returncode != 0: return problems + [f"the browser check failed to run:\n{run.stderr.strip()[-3000:]}"]
        results = json.loads(run.stdout.strip().splitlines()[-1])
    finally:
        server.terminate(); server.wait()
        shutil.rmtree(profile, ignore_errors=True)
    for r in results:
        problems += [f"{r['name']}: {p}" for p in r["problems"]]
        problems += [f"{r['name']}: broken link to {u}" for u in sorted(set(r["links"])) if not (site / u).is_file()]
        if r["brokenImages"]: problems.append(f"{r['name']}: {r['brokenImages']} images did not load")
        if r["mathErrors"]: problems.append(f"{r['name']}: {r['mathErrors']} TeX errors in the typeset math")
        if r["name"] in math_pages and r["math"] == 0: problems.append(f"{r['name']}: MathJax typeset nothing")
        if "results" in r: print(f"browser: {r['name']}: typing {query!r} listed {len(r['results'])} results, "
                                 f"first {r['results'][:3]}")
    missing = [n for n in wanted if not (shots / n.replace(".html", ".png")).is_file()]
    problems += [f"no screenshot of {n}" for n in missing]
    typeset = sum(r["math"] for r in results)
    where = shots.relative_to(ROOT) if shots.is_relative_to(ROOT) else shots
    print(f"browser: {len(pages)} pages loaded, {typeset} formulas typeset, {len(list(shots.glob('*.png')))} screenshots "
          f"in {where}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=ROOT / "site")
    parser.add_argument("--proc", type=Path, default=ROOT / "_proc")
    parser.add_argument("--nbs", type=Path, default=ROOT / "nbs")
    parser.add_argument("--sidebar", type=Path, default=SIDEBAR, help="default nbs/sidebar.yml, or $SHAPNB_SIDEBAR")
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", "/usr/bin/chromium"))
    parser.add_argument("--no-browser", action="store_true", help="static checks only")
    args = parser.parse_args()
    problems, math_pages, by_stem = static_checks(args.site, args.proc, args.sidebar, args.nbs)
    pages = sorted(p.name for p in args.site.glob("*.html"))
    print(f"static: {len(pages)} pages checked against {args.sidebar.name}")
    if not args.no_browser:
        problems += browser_checks(args.site, args.chromium, pages, math_pages, by_stem)
    paths = [p for p in problems if "build machine's path" in p]
    for p in problems[:60]: print("FAIL:", p)
    if len(problems) > 60: print(f"... and {len(problems) - 60} more problems")
    if problems:
        if paths and len(paths) == len(problems):
            print(f"FAIL: only because {len(paths)} passages show paths of the machine that ran the notebooks (stored "
                  "outputs: fix them in the notebooks, e.g. warnings that print a file path)")
        sys.exit(1)
    print("site OK")


if __name__ == "__main__":
    main()
