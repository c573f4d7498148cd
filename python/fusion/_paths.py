"""Where the package's native libraries are: an environment variable naming
the file, this package's folder (an installed wheel), then the lib/ folder
of the repository's build ($FUSION_BUILD_DIR, then build/) when the package
runs from a source tree."""

import os

PKG_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(os.path.dirname(PKG_DIR))


def library_candidates(name, env=None):
    """Paths to try for the library file `name`, in order (not checked)."""
    paths = [os.environ.get(env) if env else None, os.path.join(PKG_DIR, name)]
    for build in (os.environ.get("FUSION_BUILD_DIR"), "build"):
        if build:
            paths.append(os.path.join(REPO_DIR, build, "lib", name))
    seen, out = set(), []
    for p in paths:
        if p and p not in seen:
            seen.add(p)
            out.append(p)
    return out
