"""The offline documentation builder's rules (.ci/build_site.py): the sidebar both builds read, its checks against the
notebooks, the API-entry layout and the search index. The whole build and its browser checks run in `bash .ci/docs`."""
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / ".ci"))
from build_site import (docments_table, doc_markdown, page_clashes, search_docs, sidebar_groups,  # noqa: E402
                        sidebar_problems, wrap_signature)

SECTION_ORDER = [None, "Tutorials", "Methods", "API reference", "Benchmarks"]   # the manual's order
CARD_ORDER = ["02_beta_integral", "03_gauss_legendre", "10_tree_ensemble", "13_tree_explainer", "15_kernels",
              "20_wallenius_design", "22_bootstrap", "23_kernelshap", "31_eig_esp", "32_shapleig"]   # the methods, as derived


def test_sidebar_is_the_manuals_order():
    "Sections in the manual's order, Getting started first, the methods in the card's order, each notebook once."
    groups = sidebar_groups(ROOT / "nbs" / "sidebar.yml")
    assert [g["section"] for g in groups] == SECTION_ORDER
    stems = {g["section"]: [stem for stem, _ in g["entries"]] for g in groups}
    assert stems["Tutorials"][0] == "60_getting_started"
    assert all(s.startswith(("1", "2", "3")) or s.startswith("0") for s in stems["Methods"])
    positions = [stems["Methods"].index(s) for s in CARD_ORDER]
    assert positions == sorted(positions), f"methods out of the card's order: {stems['Methods']}"
    listed = [s for g in groups for s in stems[g["section"]]]
    on_disk = sorted(f.stem for f in (ROOT / "nbs").glob("*.ipynb"))
    assert sorted(listed) == on_disk and len(set(listed)) == len(listed)
    assert groups[0]["entries"] == [("index", "Home")]


def test_nbdev_keeps_the_sidebar():
    "custom_sidebar = True: nbdev_sidebar (run by nbdev_docs and .ci/proc_nbs.py) leaves nbs/sidebar.yml alone."
    from nbdev.config import get_config
    assert get_config(path=ROOT).custom_sidebar
    assert "nbs/sidebar.yml" not in (ROOT / ".gitignore").read_text().split()


def write_sidebar(path: Path, text: str) -> Path:
    path.write_text("website:\n  sidebar:\n    contents:\n" + text)
    return path


def test_sidebar_problems(tmp_path):
    nbs, proc = tmp_path / "nbs", tmp_path / "_proc"
    nbs.mkdir(); proc.mkdir()
    for stem in ("index", "01_a", "02_b", "03_c"): nbformat.write(nbformat.v4.new_notebook(), nbs / f"{stem}.ipynb")
    for stem in ("index", "01_a", "02_b", "09_old"): nbformat.write(nbformat.v4.new_notebook(), proc / f"{stem}.ipynb")
    sidebar = write_sidebar(tmp_path / "sidebar.yml", "      - index.ipynb\n      - section: S\n        contents:\n"
                            "          - 01_a.ipynb\n          - 01_a.ipynb\n          - 04_d.ipynb\n")
    problems = "\n".join(sidebar_problems(sidebar_groups(sidebar), proc, nbs, sidebar))
    assert "01_a.ipynb is listed 2 times" in problems
    assert "sidebar entry 04_d.ipynb (S) has no notebook" in problems
    assert "notebook 02_b.ipynb is in no sidebar section" in problems and "notebook 03_c.ipynb" in problems
    assert "_proc/09_old.ipynb has no notebook" in problems
    good = write_sidebar(tmp_path / "good.yml", "      - index.ipynb\n      - section: S\n        contents:\n"
                         "          - 01_a.ipynb\n          - href: 02_b.ipynb\n            text: B\n")
    assert sidebar_problems(sidebar_groups(good), proc, proc, good) == ["notebook 09_old.ipynb is in no sidebar section: "
                                                                        f"add it to {good}"]
    with pytest.raises(SystemExit, match="not a notebook"):
        sidebar_groups(write_sidebar(tmp_path / "bad.yml", "      - text: x\n"))


def test_two_notebooks_one_page():
    clashes = page_clashes({"24_baselines": "baselines.html", "33_baselines": "baselines.html", "01_a": "a.html"})
    assert len(clashes) == 1 and "24_baselines.ipynb and 33_baselines.ipynb" in clashes[0]


def test_long_signature_one_parameter_a_line():
    code = ("def explain(\n    model, X:NoneType=None, method:str='auto', p:int | None=None, budget:int | None=None, "
            "seed=None, **options\n)->Explanation:")
    out = wrap_signature(code)
    assert out.splitlines()[1:4] == ["    model,", "    X:NoneType=None,", "    method:str='auto',"]
    assert out.endswith(")->Explanation:") and max(map(len, out.splitlines())) < 40
    assert wrap_signature("def f(x:int)->int:") == "def f(x:int)->int:"


def test_docments_become_a_table():
    code = ("def fit(\n    X, # rows, `(n, p)`\n    budget:int=2048, # game evaluations\n"
            "    d:dict={'a': (1, 2)}, # with, commas\n    seed:NoneType=None, # seed\n    **kw\n)->dict: # the fit")
    signature, table = docments_table(code)
    assert signature == "def fit(X, budget:int=2048, d:dict={'a': (1, 2)}, seed=None, **kw)->dict:"
    assert "<td><code>X</code></td><td></td><td></td><td>rows, <code>(n, p)</code></td>" in table
    assert "<code>{&#x27;a&#x27;: (1, 2)}</code>" in table and "<td>with, commas</td>" in table
    assert 'class="returns"' in table and "<td>the fit</td>" in table
    assert docments_table("def f(x:int)->int:") is None
    md = doc_markdown(f"---\n\n### fit\n\n```python\n{code}\n```\n\n*Fit.*")
    assert "### `fit`\n\n```python\ndef fit(X," in md and md.rstrip().endswith("</table>")


def test_search_documents_split_at_headings():
    body = ('<div class="text_cell_render"><p>Intro $x^2$ text.</p><h2 id="one">One<a class="anchor-link">¶</a></h2>'
            '<table><tr><td>alpha</td><td>beta</td></tr></table></div><div class="input"><pre>code_is_not_indexed</pre>'
            '</div><div class="text_cell_render"><h3 id="two">Two</h3><p>gamma</p></div>')
    docs = search_docs("p.html", "Page", "A description.", body)
    assert [(d["anchor"], d["heading"]) for d in docs] == [("", "Page"), ("one", "One"), ("two", "Two")]
    assert docs[0]["text"] == "A description. Intro … text."
    assert docs[1]["text"] == "alpha beta" and docs[2]["text"] == "gamma"
    assert not any("code_is_not_indexed" in d["text"] for d in docs)
