"""Offline WordNet 3.0 through nltk's own WordNet reader, without ``nltk.download``.

Debian's ``wordnet-base`` and ``wordnet-sense-index`` packages install the WordNet 3.0
database under ``/usr/share/wordnet``; nltk's reader also needs the ``lexnames`` file, which
Debian does not ship, so mtp-gym ships it (``assets/wordnet/lexnames``, WordNet's 45
lexicographer files in standard order). nltk 3.10 only reads files under a root on
``nltk.data.path`` (symlinks out of it are refused), so :func:`load_wordnet` copies the
database and ``lexnames`` into a private temporary directory, puts that directory on
``nltk.data.path`` and returns a ``WordNetCorpusReader`` over it.

Only build scripts and tests use this module: the envs read the shipped JSON.

>>> wn = load_wordnet()  # doctest: +SKIP
>>> wn.synset("dog.n.01").hypernyms()  # doctest: +SKIP
[Synset('canine.n.02'), Synset('domestic_animal.n.01')]
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import warnings
from functools import cache
from pathlib import Path

from mtp_gym.data import asset_path

__all__ = ["DEBIAN_WORDNET_DIR", "WORDNET_FILES", "wordnet_installed", "load_wordnet"]

#: Where Debian's ``wordnet-base`` / ``wordnet-sense-index`` put the database.
DEBIAN_WORDNET_DIR = Path("/usr/share/wordnet")
#: The database files nltk's reader opens (``lexnames`` comes from the shipped assets).
WORDNET_FILES = (
    "cntlist.rev",
    "index.sense",
    *(f"{kind}.{pos}" for kind in ("index", "data") for pos in ("adj", "adv", "noun", "verb")),
    *(f"{pos}.exc" for pos in ("adj", "adv", "noun", "verb")),
)


def wordnet_installed(wordnet_dir: Path = DEBIAN_WORDNET_DIR) -> bool:
    """Whether every database file nltk needs is present in ``wordnet_dir``."""
    return all((wordnet_dir / name).is_file() for name in WORDNET_FILES)


@cache
def load_wordnet(wordnet_dir: Path = DEBIAN_WORDNET_DIR):
    """nltk's ``WordNetCorpusReader`` over the WordNet 3.0 database in ``wordnet_dir``.

    Raises ``FileNotFoundError`` naming the Debian packages when files are missing.
    """
    wordnet_dir = Path(wordnet_dir)
    missing = [name for name in WORDNET_FILES if not (wordnet_dir / name).is_file()]
    if missing:
        raise FileNotFoundError(
            f"WordNet 3.0 files {missing} not found in {wordnet_dir}; install Debian's "
            "wordnet-base and wordnet-sense-index (apt-get install wordnet-base wordnet-sense-index)"
        )
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class _Reader(WordNetCorpusReader):
        """nltk's reader, minus the mapping to the Open Multilingual Wordnet's WordNet 3.0
        ids that it builds on start-up (an identity here: this *is* WordNet 3.0)."""

        def map_wn(self, version: str = "wordnet") -> None:
            return None

    root = Path(tempfile.mkdtemp(prefix="mtp_gym_wordnet_"))  # mode 0700: private
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    corpus = root / "corpora" / "wordnet"
    corpus.mkdir(parents=True)
    for name in WORDNET_FILES:
        shutil.copyfile(wordnet_dir / name, corpus / name)
    shutil.copyfile(asset_path("wordnet", "lexnames"), corpus / "lexnames")
    if str(root) not in nltk.data.path:
        nltk.data.path.append(str(root))
    with warnings.catch_warnings():  # "multilingual functions are not available": no OMW here
        warnings.simplefilter("ignore", UserWarning)
        reader = _Reader(str(corpus), None)
    version = reader.get_version()
    if version != "3.0":
        raise RuntimeError(f"expected WordNet 3.0 in {wordnet_dir}, found version {version!r}")
    return reader
