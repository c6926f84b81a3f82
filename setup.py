"""Package metadata for shapnb, read from `settings.ini` (nbdev 2 layout); no pkg_resources."""
from configparser import ConfigParser
from pathlib import Path
import setuptools

cfg_file = Path(__file__).parent / "settings.ini"
config = ConfigParser(delimiters=["="])
config.read(cfg_file, encoding="utf-8")
cfg = config["DEFAULT"]

licenses = {"apache2": "Apache-2.0"}
statuses = ["1 - Planning", "2 - Pre-Alpha", "3 - Alpha", "4 - Beta", "5 - Production/Stable"]
py_versions = ["3.11", "3.12", "3.13"]

requirements = cfg.get("requirements", "").split()
dev_requirements = cfg.get("dev_requirements", "").split()
shapleig_requirements = cfg.get("shapleig_requirements", "").split()
min_python = cfg["min_python"]
license_expression = licenses[cfg["license"]]
scripts = [s.strip() for s in cfg.get("console_scripts", "").split("\n") if s.strip()]
readme = Path(__file__).parent / "README.md"
long_description = readme.read_text(encoding="utf-8") if readme.exists() else cfg["description"]

setuptools.setup(
    name=cfg["lib_name"],
    version=cfg["version"],
    description=cfg["description"],
    long_description=long_description,
    long_description_content_type="text/markdown",
    author=cfg["author"],
    author_email=cfg["author_email"],
    license=license_expression,
    url=cfg["git_url"],
    keywords=cfg["keywords"].split(),
    classifiers=[
        "Development Status :: " + statuses[int(cfg["status"]) - 1],   # status = 3: "3 - Alpha"
        "Intended Audience :: " + cfg["audience"].title(),
        "Natural Language :: " + cfg["language"].title(),
    ] + ["Programming Language :: Python :: " + v for v in py_versions[py_versions.index(min_python):]],
    packages=setuptools.find_packages(include=["shapnb", "shapnb.*"]),
    include_package_data=True,
    install_requires=requirements,
    extras_require={"dev": dev_requirements,
                    "shapleig": shapleig_requirements,   # torch and gpytorch: only the Bayesian layer (ShaplEIG) needs them
                    "bench": ["shap==0.51.*", "shapiq==1.4.1", "fasttreeshap-fixed", "catboost>=1.2", "woodelf-explainer", "xgboost-cpu>=2", "lightgbm>=4"],  # the anchors of the benchmark notebooks
                    "dask": ["dask[array,dataframe,distributed]>=2024.1"]},
    python_requires=">=" + min_python,
    zip_safe=False,
    entry_points={"console_scripts": scripts, "nbdev": [f"{cfg['lib_path']}={cfg['lib_path']}._modidx:d"]},
)
