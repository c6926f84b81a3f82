"""Render the processed notebooks (`_proc/*.ipynb`, from `nbdev_proc_nbs`) to a static site in `site/` without Quarto.

One page per notebook, named by its Quarto `output-file`, with a sidebar linking every page; Quarto cell options
(`#| echo: false`, `#| output: asis`, `#| include: false`, ...) are honoured so `show_doc` cells become the API
reference; figures are embedded; math is typeset in the browser by a MathJax copied into the site (no CDN).
    python .ci/build_site.py --mathjax path/to/mathjax/es5/tex-svg-full.js [--proc _proc] [--out site]
"""
import argparse, configparser, html, re, shutil
from pathlib import Path

import nbformat, yaml
from nbconvert import HTMLExporter
from nbconvert.filters.markdown_mistune import markdown2html_mistune
from pygments.formatters import HtmlFormatter

ROOT = Path(__file__).resolve().parents[1]
DIRECTIVE = re.compile(r"^#\|\s*([\w-]+)\s*(?::\s*(.*?))?\s*$")
WIDGET = "application/vnd.jupyter.widget-view+json"
WIDGET_NOTE = ('<p class="widget-note">An interactive widget (ipywidgets) is shown here when the notebook runs in '
               'Jupyter; the static figure above shows the same thing.</p>')


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
            cells.append(nbformat.v4.new_markdown_cell(fix_links(text, pages, base_url)))
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


PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} – {project}</title>
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
</head>
<body>
<nav class="sidebar">
<a class="brand" href="index.html">{project}</a>
<ul>
{nav}
</ul>
</nav>
<main>
<header class="page-header">
<h1 class="title">{title}</h1>
{description}
</header>
{body}
</main>
</body>
</html>
"""

CSS = """
:root { --accent: #1c7ed6; --muted: #6c757d; --code-bg: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color: #212529; }
.sidebar { position: fixed; top: 0; left: 0; bottom: 0; width: 250px; overflow-y: auto; padding: 1.2rem 1rem;
           background: #f8f9fa; border-right: 1px solid #dee2e6; }
.sidebar .brand { display: block; font-size: 1.35rem; font-weight: 700; color: var(--accent); text-decoration: none;
                  margin-bottom: 1rem; }
.sidebar ul { list-style: none; padding: 0; margin: 0; }
.sidebar li a { display: block; padding: .3rem .5rem; border-radius: 4px; color: #343a40; text-decoration: none;
                font-size: .93rem; }
.sidebar li a:hover { background: #e9ecef; }
.sidebar li a.active { background: var(--accent); color: white; }
main { margin-left: 250px; padding: 1.5rem 2.5rem 4rem; max-width: 1100px; }
.page-header { border-bottom: 1px solid #dee2e6; margin-bottom: 1.5rem; }
.page-header .title { margin: .2rem 0 .4rem; font-size: 2.1rem; }
.page-header .description { color: var(--muted); font-size: 1.08rem; }
a { color: var(--accent); }
h2, h3, h4 { margin-top: 1.8rem; }
.anchor-link { margin-left: .3rem; color: #ced4da; text-decoration: none; font-size: .8em; visibility: hidden; }
h1:hover .anchor-link, h2:hover .anchor-link, h3:hover .anchor-link, h4:hover .anchor-link { visibility: visible; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .88em; background: var(--code-bg);
       padding: .1em .3em; border-radius: 3px; }
pre { margin: 0; overflow-x: auto; font-size: .85rem; line-height: 1.45; }
pre code { background: none; padding: 0; }
.input_area { background: var(--code-bg); border: 1px solid #e9ecef; border-radius: 6px; padding: .6rem .8rem; margin: .8rem 0 .3rem; }
.rendered_html .highlight { background: var(--code-bg); border-radius: 6px; padding: .6rem .8rem; margin: .5rem 0; }
.input_area .highlight { background: none; padding: 0; margin: 0; }
.output_area { margin: .2rem 0 .8rem; }
.output_area pre { padding: .4rem .8rem; }
.output_stderr pre { background: #fff5f5; }
.output_png img, .output_area img { max-width: 100%; height: auto; }
table { border-collapse: collapse; margin: .6rem 0; font-size: .88rem; }
th, td { border-bottom: 1px solid #dee2e6; padding: .25rem .6rem; text-align: left; }
table.dataframe td, table.dataframe th { text-align: right; }
th { background: #f8f9fa; }
hr { border: 0; border-top: 1px solid #dee2e6; margin: 2rem 0 .5rem; }
p:has(> a[href*="/blob/"]:only-child) { float: right; margin: 0; font-size: .85rem; }   /* show_doc's source link */
.widget-note { color: var(--muted); font-style: italic; }
mjx-container[display="true"] { overflow-x: auto; overflow-y: hidden; }
@media (max-width: 800px) { .sidebar { position: static; width: auto; } main { margin-left: 0; padding: 1rem; } }
"""


def build(proc: Path, out: Path, mathjax: Path, project: str) -> list[str]:
    "Write one HTML page per processed notebook, the stylesheet and MathJax into `out`; return the page names."
    notebooks = sorted((p for p in proc.glob("*.ipynb") if not p.name.startswith(("_", "."))),
                       key=lambda p: (p.stem != "index", p.name))
    if not notebooks: raise SystemExit(f"no processed notebooks in {proc}: run nbdev_proc_nbs first")
    loaded = []
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        meta = front_matter(nb)
        loaded.append((path, nb, meta, output_name(path, meta)))
    pages = {path.stem: name for path, _, _, name in loaded}
    base_url = site_url()
    if out.exists(): shutil.rmtree(out)
    (out / "mathjax").mkdir(parents=True)
    shutil.copy2(mathjax, out / "mathjax" / "tex-svg-full.js")
    (out / "site.css").write_text(CSS + HtmlFormatter(style="friendly").get_style_defs(".highlight"), encoding="utf-8")
    exporter = HTMLExporter(template_name="basic", exclude_input_prompt=True, exclude_output_prompt=True)
    for path, nb, meta, name in loaded:
        body, _ = exporter.from_notebook_node(prepare(nb, pages, base_url))
        title = meta.get("title") or path.stem
        active = ' class="active"'
        nav = "\n".join(f'<li><a href="{other}"{active if other == name else ""}>{html.escape(m.get("title") or p.stem)}'
                        '</a></li>' for p, _, m, other in loaded)
        description = meta.get("description")
        description = (f'<div class="description">{markdown2html_mistune(fix_links(description, pages, base_url))}</div>'
                       if description else "")
        (out / name).write_text(PAGE.format(title=html.escape(title), project=project, nav=nav, description=description,
                                            body=retarget_headings(body)), encoding="utf-8")
    return [name for *_, name in loaded]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--proc", type=Path, default=ROOT / "_proc", help="processed notebooks (nbdev_proc_nbs)")
    parser.add_argument("--out", type=Path, default=ROOT / "site", help="output folder (replaced)")
    parser.add_argument("--mathjax", type=Path, required=True, help="MathJax 3 es5/tex-svg-full.js (npm package mathjax@3)")
    args = parser.parse_args()
    if not args.mathjax.is_file(): raise SystemExit(f"MathJax not found at {args.mathjax}")
    names = build(args.proc, args.out, args.mathjax, project="shapnb")
    print(f"built {len(names)} pages in {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}")


if __name__ == "__main__":
    main()
