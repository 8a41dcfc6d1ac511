#!/usr/bin/python3
"""Convert the classification datasets that Debian packages ship into the
files that bench embeds (host/dataset/data/NAME.csv.gz).

Run it with Debian's Python, which has the packages' readers:

    apt-get install python3-sklearn r-cran-mlbench weka python3-rdata
    /usr/bin/python3 tools/datasets/convert.py            # every dataset
    /usr/bin/python3 tools/datasets/convert.py iris wine  # some of them
    /usr/bin/python3 tools/datasets/convert.py --out DIR  # elsewhere

then `go test ./host/dataset/` and, if a file changed on purpose, update
the golden SHA-256 and the counts in host/dataset/dataset_test.go,
host/dataset/info.go and docs/datasets.md.

Each dataset is read from its Debian package's file (the SOURCES table
below names it), turned into a numeric feature matrix and an integer class
label, and written as one gzipped CSV file:

    line 1:  classes,NAME_0,NAME_1,...      the class names; label i is NAME_i
    line 2:  label,FEATURE_1,...,FEATURE_D  the feature names
    then one line per row, in the source's order:
             LABEL,X_1,...,X_D              LABEL in [0, K), X_j a number

The encoding, the same for every dataset:

  * A numeric feature is kept as it is, raw: no centring or scaling here.
    Standardisation is done once, in Go, by host/dataset's Standardize.
    A number is written as an integer when it is one, else as Python's
    shortest repr, which Go's strconv.ParseFloat reads back to the same
    float64 bit for bit.
  * A boolean feature is one 0/1 column.
  * A categorical feature (an R factor, ordered or not; an ARFF nominal
    attribute) is one-hot encoded over its levels that occur in the data,
    in the order the source declares them. A feature with exactly two such
    levels becomes one 0/1 column (1 = the second level), as its two
    one-hot columns would carry the same information; one with a single
    level becomes one constant column (which standardises to 0).
  * Missing values, declared one way: a missing value of a categorical
    feature is a level of its own, named NA, placed after the declared
    levels (so a yes/no vote with abstentions becomes three columns). A
    missing numeric value is refused: no shipped dataset has one, and the
    script stops rather than choose an imputation silently.
  * The class is the source's class attribute; its levels that occur in
    the data, in the source's declared order, are labels 0..K-1.

The gzip stream is written with mtime 0, no file name and level 9, so a
re-run with the same packages writes the same bytes. (Another zlib could
compress the same CSV to different bytes; host/dataset's
TestConvertReproducible therefore compares the decompressed text.)
"""

import argparse
import csv
import gzip
import io
import math
import os
import sys
import warnings

SKLEARN = "/usr/lib/python3/dist-packages/sklearn/datasets/data"
MLBENCH = "/usr/lib/R/site-library/mlbench/data"
WEKA = "/usr/share/doc/weka/examples"

# name -> (reader, arguments). The order is the order of `bench` listings:
# alphabetical, so that it never depends on this table's order.
SOURCES = {
    "breast_cancer": ("sklearn", [f"{SKLEARN}/breast_cancer.csv"]),
    "credit_g": ("arff", [f"{WEKA}/credit-g.arff"]),
    "digits": ("sklearn", [f"{SKLEARN}/digits.csv.gz"]),
    "dna": ("rda", [f"{MLBENCH}/DNA.rda", "Class"]),
    "glass": ("rda", [f"{MLBENCH}/Glass.rda", "Type"]),
    "ionosphere": ("rda", [f"{MLBENCH}/Ionosphere.rda", "Class"]),
    "iris": ("sklearn", [f"{SKLEARN}/iris.csv"]),
    "letter": ("rda", [f"{MLBENCH}/LetterRecognition.rda", "lettr"]),
    "pima": ("rda", [f"{MLBENCH}/PimaIndiansDiabetes.rda", "diabetes"]),
    "satimage": ("rda", [f"{MLBENCH}/Satellite.rda", "classes"]),
    "segment": ("arff", [f"{WEKA}/segment-challenge.arff", f"{WEKA}/segment-test.arff"]),
    "shuttle": ("rda", [f"{MLBENCH}/Shuttle.rda", "Class"]),
    "sonar": ("rda", [f"{MLBENCH}/Sonar.rda", "Class"]),
    "soybean": ("rda", [f"{MLBENCH}/Soybean.rda", "Class"]),
    "vehicle": ("rda", [f"{MLBENCH}/Vehicle.rda", "Class"]),
    "votes": ("rda", [f"{MLBENCH}/HouseVotes84.rda", "Class"]),
    "vowel": ("rda", [f"{MLBENCH}/Vowel.rda", "Class"]),
    "wine": ("sklearn", [f"{SKLEARN}/wine_data.csv"]),
    "zoo": ("rda", [f"{MLBENCH}/Zoo.rda", "type"]),
}

# sklearn's digits.csv.gz has no header: 64 pixel counts, then the digit.
DIGITS_CLASSES = [str(i) for i in range(10)]


class Column:
    """One source feature: numeric (values: floats, None if missing) or
    categorical (values: level names, None if missing; levels: the
    declared order)."""

    def __init__(self, name, values, levels=None, boolean=False):
        self.name = name
        self.values = values
        self.levels = levels
        self.boolean = boolean


def number(s, where):
    try:
        x = float(s)
    except ValueError:
        sys.exit(f"{where}: {s!r} is not a number")
    if not math.isfinite(x):
        sys.exit(f"{where}: {s!r} is not finite")
    return x


def read_sklearn(path):
    """sklearn's CSV files: a first line N,D,class names... (but digits:
    no header), then rows of D features and an integer label."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        rows = list(csv.reader(f))
    if path.endswith("digits.csv.gz"):
        classes, body = DIGITS_CLASSES, rows
        d = len(body[0]) - 1
    else:
        head, body = rows[0], rows[1:]
        n, d, classes = int(head[0]), int(head[1]), head[2:]
        if len(body) != n:
            sys.exit(f"{path}: header says {n} rows, file has {len(body)}")
    cols = [Column(f"x{j + 1}", [number(r[j], path) for r in body]) for j in range(d)]
    labels = [classes[int(r[d])] for r in body]
    return cols, labels, classes


def read_rda(path, target):
    """An R data frame in an mlbench .rda file: factor columns are
    categorical, numeric columns numeric, logical columns boolean."""
    import numpy as np
    import pandas as pd
    import rdata

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Unknown encoding. Assumed ASCII."
        parsed = rdata.parser.parse_file(path)
        frames = rdata.conversion.convert(parsed)
    if len(frames) != 1:
        sys.exit(f"{path}: {len(frames)} objects, want one data frame")
    (df,) = frames.values()
    cols = []
    for name in df.columns:
        s = df[name]
        if isinstance(s.dtype, pd.CategoricalDtype):
            levels = [str(c) for c in s.cat.categories]
            vals = [None if pd.isna(v) else str(v) for v in s]
            col = Column(name, vals, levels)
        elif s.dtype == bool:
            col = Column(name, [float(v) for v in s], boolean=True)
        elif np.issubdtype(s.dtype, np.number):
            col = Column(name, [None if pd.isna(v) else float(v) for v in s])
        else:
            sys.exit(f"{path}: column {name} has type {s.dtype}, not numeric, logical or factor")
        cols.append(col)
    return split_target(cols, target, path)


def split_target(cols, target, path):
    (t,) = [c for c in cols if c.name == target]
    if t.levels is None:
        sys.exit(f"{path}: class column {target} is not categorical")
    if any(v is None for v in t.values):
        sys.exit(f"{path}: class column {target} has missing values")
    return [c for c in cols if c is not t], t.values, t.levels


def arff_fields(line):
    """The comma-separated fields of an ARFF line, single quotes removed."""
    return [f.strip() for f in next(csv.reader([line], quotechar="'", skipinitialspace=True))]


def read_arff(*paths):
    """Weka's dense ARFF files (several files with one header: their rows
    concatenated, in order). '?' is a missing value."""
    header, rows = None, []
    for path in paths:
        attrs, data = [], False
        with open(path, encoding="latin-1") as f:
            for raw in f:
                line = raw.strip()
                if not line or line.startswith("%"):
                    continue
                low = line.lower()
                if data:
                    rows.append(arff_fields(line))
                elif low.startswith("@attribute"):
                    rest = line[len("@attribute"):].strip()
                    if rest.startswith("'"):
                        end = rest.index("'", 1)
                        name, kind = rest[1:end], rest[end + 1:].strip()
                    else:
                        name, kind = rest.split(None, 1)
                    if kind.startswith("{"):
                        attrs.append((name, arff_fields(kind.strip("{}"))))
                    elif kind.lower() in ("numeric", "real", "integer"):
                        attrs.append((name, None))
                    else:
                        sys.exit(f"{path}: attribute {name} has type {kind}")
                elif low.startswith("@data"):
                    data = True
        if header is not None and attrs != header:
            sys.exit(f"{path}: attributes differ from {paths[0]}'s")
        header = attrs
    cols = []
    for j, (name, levels) in enumerate(header):
        where = f"{paths[0]}: {name}"
        vals = [r[j] for r in rows]
        if levels is None:
            cols.append(Column(name, [None if v == "?" else number(v, where) for v in vals]))
        else:
            bad = sorted({v for v in vals if v != "?" and v not in levels})
            if bad:
                sys.exit(f"{where}: undeclared levels {bad}")
            cols.append(Column(name, [None if v == "?" else v for v in vals], levels))
    return split_target(cols, header[-1][0], paths[0])


def encode(cols, labels, classes, where):
    """The feature names, the rows of numbers and the label indices, by the
    rules of the module doc."""
    names, matrix = [], []
    for c in cols:
        if c.levels is None:
            if any(v is None for v in c.values):
                sys.exit(f"{where}: numeric feature {c.name} has missing values; "
                         "the conversion declares no imputation (see the module doc)")
            names.append(c.name)
            matrix.append(c.values)
            continue
        present = set(c.values)
        levels = [lv for lv in c.levels if lv in present]
        if None in present:
            levels.append(None)
        onehot = lambda lv: [1.0 if v == lv else 0.0 for v in c.values]  # noqa: E731
        label = lambda lv: f"{c.name}={'NA' if lv is None else lv}"  # noqa: E731
        if len(levels) == 2:
            names.append(label(levels[1]))
            matrix.append(onehot(levels[1]))
        else:
            for lv in levels:
                names.append(label(lv))
                matrix.append(onehot(lv))
    present = set(labels)
    used = [k for k in classes if k in present]
    index = {k: i for i, k in enumerate(used)}
    y = [index[v] for v in labels]
    return used, names, y, matrix


def text(x):
    if x.is_integer() and abs(x) < 2**53:
        return str(int(x))
    return repr(x)


def render(classes, names, y, matrix):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["classes"] + classes)
    w.writerow(["label"] + names)
    for i, label in enumerate(y):
        w.writerow([label] + [text(col[i]) for col in matrix])
    return buf.getvalue().encode("utf-8")


def gzipped(raw):
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=out, mtime=0) as g:
        g.write(raw)
    return out.getvalue()


def convert(name):
    kind, args = SOURCES[name]
    reader = {"sklearn": read_sklearn, "rda": read_rda, "arff": read_arff}[kind]
    cols, labels, classes = reader(*args)
    classes, names, y, matrix = encode(cols, labels, classes, f"{name} ({args[0]})")
    return classes, names, y, render(classes, names, y, matrix)


# The exit status when a source file or a Python module is missing: the
# Go test TestConvertReproducible skips on it (CI has no Debian packages).
MISSING = 3


def check_sources(names):
    """Exit with MISSING, naming what is missing, unless every source file
    of names and every module the readers use is there."""
    missing = []
    for name in names:
        kind, args = SOURCES[name]
        paths = args if kind != "rda" else args[:1]
        missing += [p for p in paths if not os.path.exists(p)]
        if kind == "rda":
            for mod in ("numpy", "pandas", "rdata"):
                try:
                    __import__(mod)
                except ImportError:
                    missing.append(f"Python module {mod} (python3-{mod})")
    if missing:
        print("convert.py: missing (install python3-sklearn r-cran-mlbench weka python3-rdata): "
              + ", ".join(sorted(set(missing))), file=sys.stderr)
        sys.exit(MISSING)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.normpath(os.path.join(here, "..", "..", "host", "dataset", "data"))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=default, help="directory to write NAME.csv.gz into (default: %(default)s)")
    p.add_argument("names", nargs="*", help=f"datasets to convert (default: all of {', '.join(SOURCES)})")
    a = p.parse_args()
    for n in a.names:
        if n not in SOURCES:
            p.error(f"unknown dataset {n!r}; known: {', '.join(SOURCES)}")
    check_sources(a.names or SOURCES)
    os.makedirs(a.out, exist_ok=True)
    total = 0
    print(f"{'name':<14} {'rows':>6} {'features':>8} {'classes':>7} {'bytes':>8}")
    for name in a.names or sorted(SOURCES):
        classes, names, y, raw = convert(name)
        data = gzipped(raw)
        with open(os.path.join(a.out, f"{name}.csv.gz"), "wb") as f:
            f.write(data)
        total += len(data)
        print(f"{name:<14} {len(y):>6} {len(names):>8} {len(classes):>7} {len(data):>8}")
    print(f"{'total':<14} {'':>6} {'':>8} {'':>7} {total:>8}")


if __name__ == "__main__":
    main()
