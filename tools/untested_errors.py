#!/usr/bin/env python3
"""Lists TORCHLET_CHECKs whose message no test appears to assert.

Every error path should have a test asserting its message. This reads each
TORCHLET_CHECK in the library's sources (CUDA sources aside: their checks
need a GPU), takes the string literals of its message, drops a leading
"op: " prefix, and looks for the first 40 characters of each in the tests
and their fixtures (adjacent literals joined). A check none of whose
fragments is found is printed as file:line and its literals.

It is a heuristic: a test may assert another fragment of the message (a
shorter tail, or the text a helper prefixes), and those are listed too.
Read each candidate before writing a test for it.

    tools/untested_errors.py [PATH_PREFIX...]

With prefixes (e.g. parallel/ nn/serialize/), only sources under them.
"""
import re
import subprocess
import sys


def git_files(*patterns):
    return subprocess.check_output(["git", "ls-files", *patterns], text=True).split()


def main(prefixes):
    sources = git_files("tensor/*.cc", "tensor/*.h", "autograd/*.cc", "autograd/*.h",
                        "nn/*.cc", "nn/*.h", "parallel/*.cc", "parallel/*.h")
    tests = [t for t in git_files("*_test.cc", "*_test.sh", "*_test.py", "*testdata*")
             if not t.endswith((".gz", ".safetensors", ".png", ".bin", ".pt"))]
    text = "".join(open(t, errors="ignore").read() for t in tests)
    text = re.sub(r'"\s*\n\s*"', "", text)  # "abc" "def" across lines -> "abcdef"
    found = 0
    for path in sources:
        if (path.endswith("_test.cc") or "benchmark" in path or "/cuda/" in path
                or (prefixes and not path.startswith(tuple(prefixes)))):
            continue
        source = open(path, errors="ignore").read()
        for check in re.finditer(r"TORCHLET_CHECK\((.*?)\);", source, re.S):
            literals = re.findall(r'"((?:[^"\\]|\\.)*)"', check.group(1))
            fragments = [re.sub(r"^[\w:]+\(?\)?: ", "", l).strip()[:40] for l in literals]
            fragments = [f for f in fragments if len(f) >= 12]
            if fragments and not any(f in text for f in fragments):
                line = source.count("\n", 0, check.start()) + 1
                print(f"{path}:{line}: {' | '.join(literals)[:120]}")
                found += 1
    print(f"{found} candidates", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
