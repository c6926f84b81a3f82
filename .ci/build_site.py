"""Render the processed notebooks (`_proc/*.ipynb`, from `nbdev_proc_nbs`) to a static site in `site/` without Quarto.

The pages, their order and their groups come from `nbs/sidebar.yml`, the file Quarto's build reads too: the build stops
with a list of the differences when an entry has no notebook or a notebook is in no entry. Each page has the grouped
sidebar, a search box (MiniSearch, vendored from npm, over `search.json`: every page's headings and text), the page's
table of contents on the right and previous/next links in sidebar order. Quarto cell options (`#| echo: false`,
`#| output: asis`, `#| include: false`, ...) are honoured so `show_doc` cells become the API reference (signatures
wrapped, one parameter a line); figures are embedded; math is typeset in the browser by a vendored MathJax (no CDN).
    python .ci/build_site.py --mathjax .../mathjax/es5/tex-svg-full.js --minisearch .../minisearch/dist/umd/index.js
                             [--proc _proc] [--out site] [--sidebar nbs/sidebar.yml]
"""
import argparse, ast, configparser, html, io, json, os, re, shutil, tokenize
from html.parser import HTMLParser
from pathlib import Path

import nbformat, yaml
from nbconvert import HTMLExporter
from nbconvert.filters.markdown_mistune import markdown2html_mistune
from pygments.formatters import HtmlFormatter

ROOT = Path(__file__).resolve().parents[1]
ASSETS = Path(__file__).resolve().parent / "site_assets"
SIDEBAR = Path(os.environ.get("SHAPNB_SIDEBAR") or ROOT / "nbs" / "sidebar.yml")   # the env var: a trial sidebar
DIRECTIVE = re.compile(r"^#\|\s*([\w-]+)\s*(?::\s*(.*?))?\s*$")
WIDGET = "application/vnd.jupyter.widget-view+json"
WIDGET_NOTE = ('<p class="widget-note">An interactive widget (ipywidgets) is shown here when the notebook runs in '
               'Jupyter; the static figure above shows the same thing.</p>')
DOC_TAG = "doc"   # cells holding show_doc output get this tag, so their HTML has class `celltag_doc`
SIG_WIDTH = 88    # a signature line longer than this is laid out one parameter a line


def site_url() -> str:
    "The published site's address (doc_host + doc_baseurl from settings.ini), to turn nbdev's doc links relative."
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "settings.ini")
    d = cfg["DEFAULT"]
    return d.get("doc_host", "").rstrip("/") + "/" + d.get("doc_baseurl", "").strip("/") + "/"


def front_matter(nb) -> dict:
    "The YAML front matter nbdev puts in a raw cell (title, description, output-file); the cell is removed."
    for i, cell in enumerate(nb.cells):
        src = cell.source.strip()
        if cell.cell_type == "raw" and src.startswith("---"):
            del nb.cells[i]
            return yaml.safe_load(src.strip("-").strip()) or {}
    return {}


def output_name(path: Path, meta: dict) -> str:
    "Page file name as Quarto writes it: the front matter's output-file, else the notebook name."
    return meta.get("output-file") or ("index.html" if path.stem == "index" else path.stem + ".html")


def directives(source: str) -> tuple[dict, str]:
    "Leading `#| key: value` cell options and the source without them."
    opts, lines = {}, source.splitlines()
    while lines and (m := DIRECTIVE.match(lines[0].strip())):
        opts[m.group(1).lower()] = (m.group(2) or "true").strip().lower()
        lines.pop(0)
    return opts, "\n".join(lines)


def fix_links(markdown: str, pages: dict[str, str], base_url: str) -> str:
    "Drop Quarto attribute blocks after links, make links into the published site relative, map .ipynb to pages."
    markdown = re.sub(r"(\]\([^)\s]*\))\{[^}\n]*\}", r"\1", markdown)
    markdown = markdown.replace(base_url, "")
    def page(m):
        name = pages.get(Path(m.group(2)).stem)
        return m.group(0) if name is None else f"{m.group(1)}{name}{m.group(3) or ''})"
    return re.sub(r"(\]\()((?:\./)?[\w-]+\.ipynb)(#[^)\s]*)?\)", page, markdown)


def sidebar_groups(path: Path) -> list[dict]:
    """The sidebar of a Quarto `sidebar.yml` (`website: sidebar: contents:`) as groups in order:
    `{"section": title or None, "entries": [(notebook stem, text or None), ...]}`; top-level entries form untitled
    groups. Entries are notebook file names or `{href: ..., text: ...}`; sections hold such entries."""
    if not path.is_file(): raise SystemExit(f"sidebar not found: {path}")
    doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    contents = ((doc.get("website") or {}).get("sidebar") or {}).get("contents")
    if not isinstance(contents, list): raise SystemExit(f"{path}: expected website: sidebar: contents: [...]")

    def entry(item, where):
        if isinstance(item, str): href, text = item, None
        elif isinstance(item, dict) and "href" in item: href, text = item["href"], item.get("text")
        else: href, text = None, None
        if not href or not str(href).endswith(".ipynb") or "/" in str(href):
            raise SystemExit(f"{path}: {where}: {item!r} is not a notebook of nbs/ (name.ipynb or href: name.ipynb)")
        return Path(href).stem, text

    groups = []
    for item in contents:
        if isinstance(item, dict) and "section" in item:
            items = item.get("contents") or []
            if not isinstance(items, list): raise SystemExit(f"{path}: section {item['section']!r}: contents is not a list")
            groups.append({"section": str(item["section"]),
                           "entries": [entry(i, f"section {item['section']!r}") for i in items]})
        else:
            if not groups or groups[-1]["section"] is not None: groups.append({"section": None, "entries": []})
            groups[-1]["entries"].append(entry(item, "top level"))
    return groups


def sidebar_problems(groups: list[dict], proc: Path, nbs: Path | None, sidebar: Path) -> list[str]:
    """Differences between the sidebar and the notebooks: entries without a notebook, notebooks in no group or in
    several, notebooks not processed yet or processed but since removed from `nbs`."""
    listed: dict[str, list[str]] = {}
    for g in groups:
        for stem, _ in g["entries"]: listed.setdefault(stem, []).append(g["section"] or "top level")
    processed = {p.stem for p in proc.glob("*.ipynb") if not p.name.startswith(("_", "."))}
    sources = {p.stem for p in nbs.glob("*.ipynb") if not p.name.startswith(("_", "."))} if nbs else processed
    problems = []
    for stem, where in listed.items():
        if len(where) > 1: problems.append(f"{stem}.ipynb is listed {len(where)} times ({', '.join(where)})")
        if stem not in sources: problems.append(f"sidebar entry {stem}.ipynb ({where[0]}) has no notebook: no {stem}.ipynb in {nbs or proc}")
        elif stem not in processed:
            problems.append(f"{stem}.ipynb is not in {proc.name}/: `python .ci/proc_nbs.py` failed on it or was not run")
    for stem in sorted(sources - set(listed)):
        problems.append(f"notebook {stem}.ipynb is in no sidebar section: add it to {sidebar}")
    for stem in sorted(processed - sources):
        problems.append(f"{proc.name}/{stem}.ipynb has no notebook in {nbs} (renamed or removed?): "
                        f"rm -rf {proc.name} && python .ci/proc_nbs.py")
    return problems


def page_clashes(pages: dict[str, str]) -> list[str]:
    "Notebooks that become the same page: nbdev names a page after its notebook without the number prefix."
    by_page: dict[str, list[str]] = {}
    for stem, name in pages.items(): by_page.setdefault(name, []).append(stem)
    return [f"{' and '.join(s + '.ipynb' for s in stems)} become the same page {name} (nbdev drops the number prefix and "
            "overrides any output-file; Quarto would write one over the other): rename one of them"
            for name, stems in by_page.items() if len(stems) > 1]


def short_title(title: str) -> str:
    "The sidebar's label of a page: its title up to the first colon (the rest is on the page)."
    return title.split(": ", 1)[0].strip()


def inline_md(text: str) -> str:
    "HTML of a one-line title: escaped, with `code` spans."
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def plain(text: str) -> str:
    "A title without markdown code marks."
    return text.replace("`", "")


def split_params(params: str) -> list[str]:
    "Split a parameter list at its top-level commas (not inside brackets or strings)."
    out, depth, quote, cur = [], 0, None, ""
    for ch in params:
        if quote:
            if ch == quote: quote = None
        elif ch in "'\"": quote = ch
        elif ch in "([{": depth += 1
        elif ch in ")]}": depth -= 1
        elif ch == "," and depth == 0:
            out.append(cur.strip()); cur = ""; continue
        cur += ch
    if cur.strip(): out.append(cur.strip())
    return out


SIGNATURE = re.compile(r"^(?P<head>(?:async\s+)?(?:def|class)\s+[\w.]+)\((?P<params>.*)\)(?P<tail>\s*(?:->[^\n]*)?:?)\s*$", re.S)


def no_nonetype(code: str) -> str:
    "`x=None` for fastcore's `x:NoneType=None` (the annotation it infers from a None default)."
    return re.sub(r"\b(\w+)\s*:\s*NoneType\s*=\s*None\b", r"\1=None", code)


def layout_signature(head: str, params: list[str], tail: str) -> str:
    "A signature on one line when it fits in `SIG_WIDTH`, else one parameter a line."
    one = f"{head}({', '.join(params)}){tail}"
    if len(one) <= SIG_WIDTH or not params: return one
    return head + "(\n" + "".join(f"    {p},\n" for p in params) + ")" + tail


def wrap_signature(code: str) -> str:
    """One parameter a line for a show_doc signature with a line longer than `SIG_WIDTH` (nbdev packs the parameters
    into long lines)."""
    m = SIGNATURE.match(code.strip())
    if not m or max(map(len, code.splitlines())) <= SIG_WIDTH or "#" in m.group("params"): return code
    params = split_params(" ".join(line.strip() for line in m.group("params").splitlines()))
    return layout_signature(m.group("head"), params, m.group("tail").strip()) if params else code


def param_parts(text: str) -> tuple[str, str, str]:
    "Name, annotation and default of one parameter as written (`name:anno=default`, `*args`, `**kw`)."
    try: args = ast.parse(f"def _({text}): pass").body[0].args
    except SyntaxError: return text, "", ""
    src = f"def _({text}): pass"
    seg = lambda node: ast.get_source_segment(src, node) if node is not None else ""
    if args.vararg: return "*" + args.vararg.arg, seg(args.vararg.annotation), ""
    if args.kwarg: return "**" + args.kwarg.arg, seg(args.kwarg.annotation), ""
    every = args.posonlyargs + args.args + args.kwonlyargs
    if len(every) != 1: return text, "", ""
    default = (args.defaults or [d for d in args.kw_defaults if d is not None] or [None])[0]
    return every[0].arg, seg(every[0].annotation), seg(default)


def docments_table(code: str) -> tuple[str, str] | None:
    """A show_doc signature with docments (`param, # comment` lines, as nbdev prints them) as the signature without
    the comments and an HTML table of the parameters (and the return value); None without docments."""
    try: tokens = list(tokenize.generate_tokens(io.StringIO(code + "\n").readline))
    except (tokenize.TokenError, SyntaxError): return None
    comments = {t.start[0]: (t.start[1], t.string.lstrip("#").strip()) for t in tokens if t.type == tokenize.COMMENT}
    lines = code.splitlines()
    head = re.match(r"^((?:async\s+)?(?:def|class)\s+[\w.]+)\($", lines[0].rstrip()) if lines else None
    if not comments or not head or len(lines) < 2 or not lines[-1].lstrip().startswith(")"): return None
    rows, params = [], []
    for number, line in enumerate(lines[1:-1], start=2):
        col, comment = comments.get(number, (len(line), ""))
        here = split_params(line[:col].strip().rstrip(","))
        for i, text in enumerate(here):
            name, anno, default = param_parts(text)
            if anno == "NoneType" and default == "None": anno = ""
            params.append(name + (f":{anno}" if anno else "") + (f"={default}" if default else ""))
            if name != "*" and name != "/": rows.append((name, anno, default, comment if i == len(here) - 1 else ""))
    col, ret_comment = comments.get(len(lines), (len(lines[-1]), ""))
    ret = re.match(r"^\s*\)\s*(?:->\s*(.*?))?\s*:?\s*$", lines[-1][:col])
    if ret is None: return None
    ret_anno = (ret.group(1) or "").strip()
    signature = layout_signature(head.group(1), params, (f"->{ret_anno}" if ret_anno else "") + ":")
    cols = [c for c, on in (("Type", any(r[1] for r in rows) or ret_anno), ("Default", any(r[2] for r in rows))) if on]
    code_cell = lambda t: f"<code>{html.escape(t)}</code>" if t else ""
    def row(name, anno, default, comment, cls=""):
        cells = [name] + [code_cell(anno) if c == "Type" else code_cell(default) for c in cols] + [inline_md(comment)]
        return f"<tr{cls}>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"
    body = [row(code_cell(n), a, d, c) for n, a, d, c in rows]
    if ret_anno or ret_comment: body.append(row("<strong>Returns</strong>", ret_anno, "", ret_comment, ' class="returns"'))
    table = ('<table class="params"><thead><tr><th>Parameter</th>' + "".join(f"<th>{c}</th>" for c in cols) +
             "<th>Description</th></tr></thead><tbody>" + "".join(body) + "</tbody></table>")
    return signature, table


def doc_markdown(markdown: str) -> str:
    """show_doc output laid out for reading: the name as code, the signature wrapped (one parameter a line when
    long, `x=None` for `x:NoneType=None`) and its docments as a table of parameters below the docstring."""
    markdown = re.sub(r"^(#{2,4}) ([\w.]+)[ \t]*$", r"\1 `\2`", markdown, count=1, flags=re.M)
    m = re.search(r"```python\n(.*?)\n```", markdown, flags=re.S)
    if not m: return markdown
    split = docments_table(m.group(1))
    code, table = split if split else (wrap_signature(no_nonetype(m.group(1))), "")
    markdown = markdown[:m.start(1)] + code + markdown[m.end(1):]
    return markdown.rstrip() + (f"\n\n{table}\n" if table else "\n")


def prepare(nb, pages: dict[str, str], base_url: str):
    "Apply cell options: hide inputs, drop cells, turn `asis` markdown output into page text, replace widgets."
    cells = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = fix_links(cell.source, pages, base_url)
            cells.append(cell); continue
        if cell.cell_type != "code": continue
        opts, cell.source = directives(cell.source)
        if opts.get("include") == "false" or "hide" in opts: continue
        if opts.get("output") == "false": cell.outputs = []
        if opts.get("output") == "asis":
            text = "\n\n".join(o.get("data", {}).get("text/markdown", "") or o.get("text", "") for o in cell.outputs)
            is_doc = re.search(r"^\s*show_doc\(", cell.source, re.M) is not None
            md = nbformat.v4.new_markdown_cell(fix_links(doc_markdown(text) if is_doc else text, pages, base_url))
            if is_doc: md.metadata["tags"] = [DOC_TAG]
            cells.append(md)
            continue
        outputs = []
        for out in cell.get("outputs", []):
            if WIDGET in out.get("data", {}): out = nbformat.v4.new_output("display_data", {"text/html": WIDGET_NOTE})
            outputs.append(out)
        cell.outputs = outputs
        if opts.get("echo") == "false":
            if not outputs: continue
            cell.metadata.setdefault("transient", {})["remove_source"] = True
        cells.append(cell)
    nb.cells = cells
    return nb


def slug(text: str) -> str:
    "Pandoc's automatic identifier of a heading (what Quarto and nbdev's doc links use)."
    text = re.sub(r"<[^>]+>", "", html.unescape(text)).strip().lower()
    text = re.sub(r"[^\w\s.-]", "", text)
    text = re.sub(r"\s+", "-", text)
    return re.sub(r"^[^a-z]+", "", text) or "section"


def retarget_headings(body: str) -> str:
    "Give headings pandoc-style ids (unique per page) and point their anchor links at them."
    seen: dict[str, int] = {}
    def one(m):
        level, inner = m.group(1), m.group(3)
        text = re.sub(r'<a class="anchor-link".*?</a>', "", inner)
        sid = slug(text)
        n = seen.get(sid, 0); seen[sid] = n + 1
        sid = sid if n == 0 else f"{sid}-{n}"
        return f'<h{level} id="{sid}">{text}<a class="anchor-link" href="#{sid}">¶</a></h{level}>'
    return re.sub(r"<h([1-6])( id=\"[^\"]*\")?>(.*?)</h\1>", one, body, flags=re.S)


def page_toc(body: str) -> list[tuple[int, str, str]]:
    """The page's h2 and h3 headings as (level, id, HTML text); an h3 that repeats the h2 above it (an API entry
    under a heading of the same name) is left out."""
    toc, last_h2 = [], None
    for m in re.finditer(r'<h([23]) id="([^"]+)">(.*?)<a class="anchor-link"', body, flags=re.S):
        level, sid, inner = int(m.group(1)), m.group(2), m.group(3)
        inner = re.sub(r"</?a\b[^>]*>", "", inner).strip()
        text = re.sub(r"<[^>]+>", "", inner).strip()
        if level == 2: last_h2 = text
        elif text == last_h2: continue
        toc.append((level, sid, inner))
    return toc


class SearchText(HTMLParser):
    """The searchable text of a page body, split at its h1–h3 headings: the prose and API entries (markdown cells,
    `text_cell_render`), not code or printed output."""
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.sections = [["", "", []]]   # [anchor, heading, text pieces]
        self._depth, self._inside, self._heading = 0, None, None

    BLOCKS = {"p", "div", "li", "td", "th", "tr", "pre", "br", "table", "ul", "ol", "blockquote", "h4", "h5", "h6"}

    def _gap(self, tag):
        "Block boundaries separate words (table cells, paragraphs)."
        if tag in self.BLOCKS and self._inside is not None and self._heading is None: self.sections[-1][2].append(" ")

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self._gap(tag)
        if tag == "div":
            self._depth += 1
            if self._inside is None and "text_cell_render" in (a.get("class") or "").split(): self._inside = self._depth
        elif tag in ("h1", "h2", "h3") and self._inside is not None:
            self._heading = [a.get("id", ""), []]

    def handle_endtag(self, tag):
        self._gap(tag)
        if tag == "div":
            if self._inside == self._depth: self._inside = None
            self._depth -= 1
        elif tag in ("h1", "h2", "h3") and self._heading is not None:
            anchor, pieces = self._heading
            self.sections.append([anchor, " ".join("".join(pieces).replace("¶", "").split()), []])
            self._heading = None

    def handle_data(self, data):
        if self._inside is None: return
        (self._heading[1] if self._heading is not None else self.sections[-1][2]).append(data)


def tex_words(m) -> str:
    "What the search index keeps of a formula: simple inline math as it reads (`$p-1$`), else an ellipsis."
    inner = m.group(1)
    return inner.strip() if inner and len(inner) <= 24 and not re.search(r"[\\{}^_]", inner) else "…"


def search_docs(page: str, title: str, description: str, body: str) -> list[dict]:
    "Search documents of one page: one per section, with the page, anchor, page title, heading and text."
    parser = SearchText(); parser.feed(body); parser.close()
    docs = []
    for i, (anchor, heading, pieces) in enumerate(parser.sections):
        text = " ".join("".join(pieces).split())
        text = re.sub(r"\$\$.*?\$\$|\$([^$]{1,200})\$", tex_words, text)   # TeX is not searched for
        text = " ".join(text.split())
        if i == 0: heading, text = title, " ".join(f"{description} {text}".split())
        if not heading and not text: continue
        docs.append({"id": f"{page}#{anchor}", "page": page, "anchor": anchor, "title": title, "heading": heading,
                     "text": text})
    return docs


PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title_text} – {project}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="site.css">
<script>
window.MathJax = {{
  tex: {{inlineMath: [['$', '$'], ['\\\\(', '\\\\)']], displayMath: [['$$', '$$'], ['\\\\[', '\\\\]']], processEscapes: true,
        packages: {{'[-]': ['noundefined']}}}},   // an undefined macro is then a TeX error that the site check reports
  options: {{ignoreHtmlClass: 'tex2jax_ignore', processHtmlClass: 'tex2jax_process'}},
  svg: {{fontCache: 'global'}}
}};
</script>
<script defer id="MathJax-script" src="mathjax/tex-svg-full.js"></script>
<script defer src="minisearch/index.js"></script>
<script defer src="site.js"></script>
</head>
<body>
<header class="topbar">
<a class="brand" href="index.html">{project}</a>
<span class="tagline">{tagline}</span>
<div class="search" role="search">
<input id="search-input" type="search" placeholder="Search the documentation  ( / )" autocomplete="off" spellcheck="false" aria-label="Search the documentation" aria-controls="search-results">
<div id="search-results" class="search-results" hidden></div>
</div>
</header>
<div class="layout">
<nav class="sidebar" id="sidebar" aria-label="Contents">
{nav}
</nav>
<div class="content">
<main>
<header class="page-header">
{section_label}<h1 class="title">{title}</h1>
{description}
</header>
{body}
{page_nav}
</main>
{toc}
</div>
</div>
</body>
</html>
"""


def nav_html(groups: list[dict], labels: dict[str, str], titles: dict[str, str], current: str) -> str:
    "The grouped sidebar: untitled groups as plain lists, sections as open, collapsible `<details>`."
    out = []
    for g in groups:
        active = ' class="active" aria-current="page"'
        items = "\n".join(f'<li><a href="{name}" title="{html.escape(plain(titles[name]))}"'
                          f'{active if name == current else ""}>{labels[name]}</a></li>' for name in g["names"])
        if g["section"] is None: out.append(f'<ul class="nav-top">\n{items}\n</ul>')
        else:
            out.append(f'<details class="nav-section" data-section="{html.escape(g["section"])}" open>'
                       f'<summary>{html.escape(g["section"])}</summary>\n<ul>\n{items}\n</ul>\n</details>')
    return "\n".join(out)


def page_nav_html(prev: str | None, nxt: str | None, labels: dict[str, str]) -> str:
    "Previous and next page, in sidebar order."
    links = []
    if prev: links.append(f'<a class="prev" rel="prev" href="{prev}"><span class="dir">← Previous</span>'
                          f'<span class="label">{labels[prev]}</span></a>')
    if nxt: links.append(f'<a class="next" rel="next" href="{nxt}"><span class="dir">Next →</span>'
                         f'<span class="label">{labels[nxt]}</span></a>')
    return f'<nav class="page-nav" aria-label="Previous and next page">\n{"".join(links)}\n</nav>' if links else ""


def toc_html(toc: list[tuple[int, str, str]]) -> str:
    if not toc: return ""
    items = "\n".join(f'<li class="toc-h{level}"><a href="#{sid}">{inner}</a></li>' for level, sid, inner in toc)
    return f'<aside class="toc" aria-label="On this page">\n<div class="toc-title">On this page</div>\n<ul>\n{items}\n</ul>\n</aside>'


def build(proc: Path, out: Path, mathjax: Path, minisearch: Path, project: str, sidebar: Path = SIDEBAR,
          nbs: Path | None = ROOT / "nbs") -> list[str]:
    """Write one HTML page per notebook in sidebar order, the search index, stylesheet, script, MathJax and
    MiniSearch into `out`; return the page names."""
    groups = sidebar_groups(sidebar)
    if problems := sidebar_problems(groups, proc, nbs, sidebar):
        raise SystemExit(f"{sidebar} does not match the notebooks:\n  " + "\n  ".join(problems))
    loaded = {}
    for g in groups:
        for stem, _ in g["entries"]:
            path = proc / f"{stem}.ipynb"
            nb = nbformat.read(path, as_version=4)
            meta = front_matter(nb)
            loaded[stem] = (path, nb, meta, output_name(path, meta))
    pages = {stem: name for stem, (*_, name) in loaded.items()}
    if clashes := page_clashes(pages): raise SystemExit("two notebooks, one page:\n  " + "\n  ".join(clashes))
    titles = {name: str(meta.get("title") or stem) for stem, (_, _, meta, name) in loaded.items()}
    labels = {pages[stem]: inline_md(text or short_title(titles[pages[stem]]))
              for g in groups for stem, text in g["entries"]}
    for g in groups: g["names"] = [pages[stem] for stem, _ in g["entries"]]
    order = [name for g in groups for name in g["names"]]
    section_of = {name: g["section"] for g in groups for name in g["names"]}
    base_url = site_url()
    if out.exists(): shutil.rmtree(out)
    (out / "mathjax").mkdir(parents=True)
    shutil.copy2(mathjax, out / "mathjax" / "tex-svg-full.js")
    (out / "minisearch").mkdir()
    shutil.copy2(minisearch, out / "minisearch" / "index.js")
    for extra in (minisearch.with_name(minisearch.name + ".map"), minisearch.parents[2] / "LICENSE.txt"):
        if extra.is_file(): shutil.copy2(extra, out / "minisearch" / extra.name)
    (out / "site.css").write_text((ASSETS / "site.css").read_text(encoding="utf-8") +
                                  HtmlFormatter(style="friendly").get_style_defs(".highlight"), encoding="utf-8")
    shutil.copy2(ASSETS / "site.js", out / "site.js")
    home_meta = loaded.get("index", (None, None, {}, None))[2]
    tagline = html.escape(short_title(str(home_meta.get("description", "")).rstrip(".")))
    exporter = HTMLExporter(template_name="basic", exclude_input_prompt=True, exclude_output_prompt=True)
    index_docs = []
    for i, name in enumerate(order):
        stem = next(s for s, n in pages.items() if n == name)
        path, nb, meta, _ = loaded[stem]
        body, _ = exporter.from_notebook_node(prepare(nb, pages, base_url))
        body = retarget_headings(body)
        title = titles[name]
        description = str(meta.get("description") or "")
        desc_html = (f'<div class="description">{markdown2html_mistune(fix_links(description, pages, base_url))}</div>'
                     if description else "")
        section = section_of[name]
        (out / name).write_text(PAGE.format(
            title_text=html.escape(plain(title)), project=project, tagline=tagline,
            nav=nav_html(groups, labels, titles, name),
            section_label=f'<div class="section-label">{html.escape(section)}</div>\n' if section else "",
            title=inline_md(title), description=desc_html, body=body,
            page_nav=page_nav_html(order[i - 1] if i else None, order[i + 1] if i + 1 < len(order) else None, labels),
            toc=toc_html(page_toc(body))), encoding="utf-8")
        index_docs += search_docs(name, plain(title), plain(description), body)
    index = json.dumps({"pages": order, "docs": index_docs}, ensure_ascii=False, separators=(",", ":"))
    (out / "search.json").write_text(index, encoding="utf-8")
    (out / "search-index.js").write_text(f"window.SHAPNB_SEARCH_INDEX = {index};\n", encoding="utf-8")   # for file://
    return order


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--proc", type=Path, default=ROOT / "_proc", help="processed notebooks (nbdev_proc_nbs)")
    parser.add_argument("--nbs", type=Path, default=ROOT / "nbs", help="the notebooks (to find unprocessed or stale ones)")
    parser.add_argument("--out", type=Path, default=ROOT / "site", help="output folder (replaced)")
    parser.add_argument("--sidebar", type=Path, default=SIDEBAR, help="Quarto sidebar.yml (default nbs/sidebar.yml, "
                        "or $SHAPNB_SIDEBAR)")
    parser.add_argument("--mathjax", type=Path, required=True, help="MathJax 3 es5/tex-svg-full.js (npm package mathjax@3)")
    parser.add_argument("--minisearch", type=Path, required=True, help="MiniSearch dist/umd/index.js (npm package minisearch)")
    args = parser.parse_args()
    if not args.mathjax.is_file(): raise SystemExit(f"MathJax not found at {args.mathjax}")
    if not args.minisearch.is_file(): raise SystemExit(f"MiniSearch not found at {args.minisearch}")
    names = build(args.proc, args.out, args.mathjax, args.minisearch, project="shapnb", sidebar=args.sidebar, nbs=args.nbs)
    size = (args.out / "search.json").stat().st_size
    print(f"built {len(names)} pages in {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out} "
          f"(sidebar {args.sidebar.relative_to(ROOT) if args.sidebar.is_relative_to(ROOT) else args.sidebar}, "
          f"search index {size / 1e3:.0f} kB)")


if __name__ == "__main__":
    main()
