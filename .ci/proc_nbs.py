"""`nbdev_proc_nbs` without its Quarto installer: where Quarto is missing, nbdev tries `sudo` to download it and then
re-runs `pip install -e .[dev]`; here we run the same processing steps (quarto.yml, sidebar, module index, processed
notebooks in _proc/) and nothing else."""
import nbdev.doclinks
from nbdev.config import get_config
from nbdev.quarto import refresh_quarto_yml, nbdev_sidebar
from nbdev.serve import proc_nbs

if __name__ == "__main__":   # proc_nbs starts worker processes that re-import this file
    path = get_config().nbs_path
    refresh_quarto_yml()
    nbdev.doclinks._build_modidx()
    nbdev_sidebar.__wrapped__(path=path)   # a no-op: custom_sidebar = True keeps the hand-written nbs/sidebar.yml
    proc_nbs(path, n_workers=2)
    print(f"processed the notebooks of {path} into _proc/")
