# %% [markdown]
# # Lab 8 — Offloader with path containment
#
# **18 points**: 15 autograded (nine test cells) and 3 for a short written answer.
#
# **In:** every tool result, whatever its size. **Out:** the result unchanged when it is
# small; otherwise a short *pointer* that describes it and names the file it was saved to.
# The model gets a `read_artifact` tool to pull back the slice it needs, and that tool
# refuses every path outside the artifact folder.
#
# ## The API you implement
#
# ```python
# off = Offloader(root, threshold=2000)   # creates root (and its parents) if missing
# off.wrap(tool_name, payload)  # -> str: the payload as text, or a pointer to its file
# off.read(path, offset=0, limit=200)     # -> str: a window of lines, or "Error: ..."
# off._contained(path)          # -> bool: does path really resolve inside root?
# off.saved_chars               # characters written to artifact files so far (int)
# ```
#
# **`wrap(tool_name, payload)`**
# * A payload that is not a `str` becomes `json.dumps(payload, indent=2, default=str)`.
# * If that text has `len(text) <= threshold` characters, `wrap` returns it **unchanged**:
#   no file is written and `saved_chars` does not move.
# * Otherwise it writes the text to a new file directly inside `root`, named
#   `<tool_name>-<8 characters>.txt` (use `os.path.join(root, name)`, so the path in the
#   pointer is exactly the string `read` expects), adds `len(text)` to `saved_chars`, and
#   returns a pointer that holds:
#   * the tool name, the number of lines (`len(text.splitlines())`) and of characters;
#   * the file's path;
#   * the first 8 lines, verbatim;
#   * the last 4 lines, verbatim, **only when there are more than 12 lines** (with 12 or
#     fewer, a tail would repeat lines the head already shows);
#   * how to read the rest: the word `read_artifact` and the path again.
#   No other line of the payload appears in the pointer, and none appears twice.
#
# **`read(path, offset=0, limit=200)`** never raises. It returns a string that starts with
# `Error:` when
# * `path` does not resolve inside `root` (`_contained` is False),
# * `offset` is not an `int` or is below 0 (a `bool` is not accepted as an `int`),
# * `limit` is not an `int` or is outside 1…500,
# * or there is no such file.
#
# Otherwise it returns `"[lines {offset}-{end} of {total}]\n"` followed by lines
# `offset` to `end - 1` (0-based) of the file, joined with `"\n"`, where
# `end = min(offset + limit, total)`. An offset past the end gives an empty window, not an
# error.
#
# **`_contained(path)`** resolves symbolic links and `..` in both `root` and `path`
# (`os.path.realpath`) and compares **path components** (`os.path.commonpath`), not
# strings. A relative path is taken from the current folder, as `open` would. It returns
# a `bool` and never raises.

# %%
import os
import tempfile

import matplotlib.pyplot as plt
import numpy as np

from course.worlds import offload

# %% [markdown]
# ## Why it exists
#
# Two mechanisms push the same way, and they stack.
#
# **Growth.** A tool result is appended to the history and resent with every later
# request. If each turn adds `a` tokens to a first request of `P` tokens, `n` requests
# cost `n·P + a·n(n−1)/2` input tokens: the square of the turns, scaled by `a`. Cutting old
# messages later trims what has piled up; offloading changes `a` itself, because what is
# appended is a 1,500-character pointer instead of a 40,000-character dump.
#
# **Position.** Models find a fact most reliably near the start or the end of the context
# and least reliably in the middle. Dumps land in the middle and push the instructions at
# the start further away from everything else. The table below is one production run:

# %%
print(f"{'turn':>4} {'context tokens':>15}  {'growth':>7}  {'success':>7}  appended")
previous = None
for turn, ctx, what, success in offload.CONTEXT_TABLE:
    growth = f"{ctx / previous:.1f}x" if previous else ""
    print(f"{turn:>4} {ctx:>15,}  {growth:>7}  {success:>7.2f}  {what}")
    previous = ctx

# %% [markdown]
# From turn 5 to 15 the context grows 6.5× and success barely moves (0.93 → 0.90); from
# turn 15 to 30 it grows another 5.6× and success falls to 0.58. Nothing in the code
# changed. What changed is how much text sits around the goal. A run that keeps growing
# ends at the API's hard limit with a 400 (`prompt is too long`), and that is the lucky
# ending: the unlucky one finishes and reports success with quietly worse answers.

# %% [markdown]
# ## The bug it prevents
#
# ### 1. Every dump is paid for on every later turn
#
# A 30-turn audit played by a scripted model (`offload.run_task`, a scenario harness, not an
# agent loop): one search per turn, 400 characters per result, except turns 12, 20 and 26,
# which return dumps of 40,000, 90,000 and 40,000 characters. Each request is billed as the
# API counts it: the whole conversation so far, every turn.

# %%
plain = offload.run_task(offload.planned)
turns = np.arange(1, len(plain.input_tokens) + 1)
print(f"requests: {len(plain.input_tokens)}   first: {plain.input_tokens[0]:,} tokens   "
      f"last: {plain.input_tokens[-1]:,} tokens   billed: {sum(plain.input_tokens):,}")
for t in (11, 12, 13, 21, 27):
    print(f"  request {t:>2}: {plain.input_tokens[t - 1]:>7,} input tokens")

# %% [markdown]
# Each dump raises the floor of every later request by its full size (about 10,000 tokens
# for a 40,000-character dump): the three dumps are 170,000 characters, and the run is
# billed for them again and again until the last request.
#
# ### 2. The containment check everyone writes first
#
# `read_artifact` opens a path that the **model** chose. The model chose it after reading
# everything in its context, including pages it retrieved, and a model cannot reliably
# tell an instruction you wrote from an instruction someone planted in a page. So the path
# is attacker-controlled. The natural check compares strings:

# %%
def string_contained(root, path):
    """The check that looks right: is the absolute path a string prefix of the root?"""
    return os.path.abspath(path).startswith(os.path.abspath(root))


base = tempfile.mkdtemp(prefix="lab08-")
root = os.path.join(base, "agent-artifacts")
os.makedirs(root)
with open(os.path.join(root, "search_docs-0001.txt"), "w") as f:
    f.write("a real artifact\n")

sibling = root + "-evil"                       # a folder whose NAME extends the root
os.makedirs(sibling)
secret = os.path.join(sibling, "secret.txt")
with open(secret, "w") as f:
    f.write("tenant-b api key: sk-live-7731\n")

with open(os.path.join(base, "tenant-b.txt"), "w") as f:    # a file just above the root
    f.write("tenant-b invoices\n")

link = os.path.join(root, "innocent.txt")      # a symlink planted INSIDE the root
os.symlink(secret, link)

attempts = {
    "legitimate artifact": os.path.join(root, "search_docs-0001.txt"),
    "absolute /etc/passwd": "/etc/passwd",
    "sibling prefix": secret,
    "symlink inside root": link,
    "../ traversal": os.path.join(root, "..", "tenant-b.txt"),
}
for name, path in attempts.items():
    verdict = "admitted" if string_contained(root, path) else "refused"
    print(f"{name:22} {verdict:9} reads {os.path.realpath(path).replace(base, '<tmp>')}")

# %% [markdown]
# The string check refuses `/etc/passwd` and the traversal (`abspath` collapses `..`), so a
# test suite with only those cases passes. It admits two real escapes:
#
# * **sibling prefix**: the string `…/agent-artifacts-evil/secret.txt` starts with the
#   string `…/agent-artifacts`. As paths they share nothing below `<tmp>`; comparing
#   components (`os.path.commonpath`) sees that, comparing characters does not.
# * **symlink**: `abspath` only rewrites the string; it never asks the file system. The
#   link's path really is inside the root, and opening it reads the secret.
#   `os.path.realpath` follows the link and reports where the read will land.
#
# The symlink is the cheaper attack: the artifact folder is the folder the agent writes
# into, so anything that influences a file name there gets it for free.
#
# Now the attack end to end. A retrieved page carries an instruction, the model obeys it,
# and the harness serves `read_artifact` through the string check:

# %%
def string_checked_read(path, offset=0, limit=200):
    if not string_contained(root, path):
        return "Error: path outside the artifact directory."
    with open(path) as f:
        return f.read()


def attacked_tools(name, args):
    if name == "read_artifact":
        return string_checked_read(args["path"])
    return offload.POISONED_RESULT.format(path=link)


attacked = offload.run_task(offload.obedient, tool=attacked_tools)
print("tool calls:", attacked.calls)
print("model's answer:", attacked.answer)

# %% [markdown]
# The other tenant's key is now in the transcript, and from there in whatever the model
# writes next. The containment check is what stops the read, whether or not the model was
# fooled.
#
# ## Tier 1: pseudocode
#
# ```text
# wrap(tool, payload):
#     text = payload as text
#     if text is short enough:            return text          # no tax on small results
#     write text to a new file inside ROOT
#     return pointer(tool, line and char counts, path,
#                    first HEAD lines, last TAIL lines if they are not already shown,
#                    "read_artifact(path, offset, limit) for the rest")
#
# read(path, offset, limit):
#     resolve links and .. in ROOT and in path
#     if the resolved path is not below the resolved ROOT, component by component:
#         return an error string                              # the model reads it; no raise
#     if offset or limit is not a sane whole number:          return an error string
#     return a header with the line numbers, then that window of lines
# ```
#
# The pointer decides whether offloading pays. One that says only "saved to a file" makes
# the model read the whole thing back: a second round trip, and the dump is in the context
# after all. Head, tail and counts are usually enough to decide that no read is needed.
#
# **With LangGraph** the wrapping moves into the tools node: call the prebuilt tool node,
# then pass each tool message's content through `wrap` before it is returned. Every tool
# added later is offloaded without anyone remembering to do it. `Offloader` itself does
# not change.

# %% [markdown]
# ## Implement
#
# The file name needs 8 characters that differ between payloads; a hash of the text
# (`hashlib.sha256(...).hexdigest()[:8]`) also keeps the pointer the same length from run
# to run. Read the file back from the path `realpath` resolved, so that a link swapped
# after the check cannot redirect the read.

# %% id="offloader" kind="solution"
import hashlib
import json
import os

HEAD, TAIL = 8, 4
MAX_LIMIT = 500


class Offloader:
    """Moves big tool results into files under ``root`` and serves slices of them back."""

    def __init__(self, root, threshold=2000):
        ### BEGIN SOLUTION
        self.root = os.fspath(root)
        self.threshold = threshold
        self.saved_chars = 0
        os.makedirs(self.root, exist_ok=True)
        ### END SOLUTION

    def wrap(self, tool_name, payload):
        """The payload as text when it is small, else a pointer to the file it was saved to."""
        ### BEGIN SOLUTION
        text = payload if isinstance(payload, str) else json.dumps(payload, indent=2,
                                                                     default=str)
        if len(text) <= self.threshold:
            return text
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
        path = os.path.join(self.root, f"{tool_name}-{digest}.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        self.saved_chars += len(text)
        lines = text.splitlines()
        parts = [f"[offloaded] {tool_name}: {len(lines)} lines, {len(text)} chars, in {path}",
                 f"--- first {min(HEAD, len(lines))} lines ---", *lines[:HEAD]]
        if len(lines) > HEAD + TAIL:
            parts += [f"--- last {TAIL} lines ---", *lines[-TAIL:]]
        parts.append(f"More: read_artifact(path='{path}', offset={HEAD}, limit=200)")
        return "\n".join(parts)
        ### END SOLUTION

    def _contained(self, path):
        """True only if ``path`` resolves (links and .. followed) to a place inside root."""
        ### BEGIN SOLUTION
        root = os.path.realpath(self.root)
        try:
            target = os.path.realpath(path)
            return os.path.commonpath([root, target]) == root
        except (TypeError, ValueError):
            return False
        ### END SOLUTION

    def read(self, path, offset=0, limit=200):
        """Lines offset .. offset+limit-1 of an artifact, or a string starting 'Error:'."""
        ### BEGIN SOLUTION
        if not self._contained(path):
            return "Error: path outside the artifact directory."
        if type(offset) is not int or offset < 0:
            return f"Error: offset must be a whole number >= 0, got {offset!r}."
        if type(limit) is not int or not 1 <= limit <= MAX_LIMIT:
            return f"Error: limit must be a whole number from 1 to {MAX_LIMIT}, got {limit!r}."
        target = os.path.realpath(path)
        if not os.path.isfile(target):
            return "Error: no such artifact."
        with open(target, encoding="utf-8") as f:
            lines = f.read().splitlines()
        window = lines[offset:offset + limit]
        return f"[lines {offset}-{offset + len(window)} of {len(lines)}]\n" + "\n".join(window)
        ### END SOLUTION

# %% [markdown]
# ## Self-check
#
# The five attempts from section 2 against your class, and a small result. These are
# **not** the grade: the graded cells below run more cases, including hidden ones.

# %%
off = Offloader(root)
for name, path in attempts.items():
    print(f"{name:22} {off.read(path)[:60]!r}")
assert off.read(attempts["legitimate artifact"]).startswith("[lines 0-1 of 1]")
for name in ("absolute /etc/passwd", "sibling prefix", "symlink inside root", "../ traversal"):
    assert off.read(attempts[name]).startswith("Error:"), f"{name} was not refused"
assert off.wrap("get_account", '{"id": 7}') == '{"id": 7}', "small results pass unchanged"
print("self-check passed (the graded tests check more)")

# %% [markdown]
# ## The numbers, with your offloader
#
# **A pointer's size.** A search returns 38,059 characters over 346 lines. The pointer
# names the artifact's path twice, so its length depends on the root folder; the figure
# below is quoted at `/tmp/agent-artifacts`, a common default root (20 characters).
# Ours is created under a temporary folder, so we substitute the pinned root into the
# pointer's text rather than write to a fixed folder on your machine.

# %%
dump = offload.search_dump()
off = Offloader(os.path.join(base, "agent-artifacts"))
pointer = off.wrap("search_docs", dump)
quoted = pointer.replace(off.root, offload.PINNED_ROOT)
print(quoted[:400], "...", quoted[-120:], sep="\n")
print(f"\n{len(dump):,} chars over {len(dump.splitlines())} lines -> a {len(quoted):,}-char "
      f"pointer at {offload.PINNED_ROOT} ({len(dump) / len(quoted):.1f}x smaller)")
print(f"this machine's root is {len(off.root)} chars long, so here the pointer is "
      f"{len(pointer):,} chars")

# %% [markdown]
# A figure often quoted for this dump is a 1,573-character pointer, 24× smaller. That
# pointer words its framing slightly differently; the reference pointer here comes out at
# 1,555. Your own wording gives a figure within a few dozen characters of both; what
# matters is the order of magnitude, and that the head and tail survive.
#
# **The growth, flattened.** The same 30-turn task, every result through `wrap`:

# %%
wrapped = offload.run_task(offload.planned, wrap=Offloader(os.path.join(base, "task")).wrap)
slope_plain = np.polyfit(turns, plain.input_tokens, 1)[0]
slope_wrapped = np.polyfit(turns, wrapped.input_tokens, 1)[0]
print(f"billed input: {sum(plain.input_tokens):,} tokens without, "
      f"{sum(wrapped.input_tokens):,} with the offloader")
print(f"slope: {slope_plain:,.0f} tokens per turn without, {slope_wrapped:,.0f} with")

fig, ax = plt.subplots(figsize=(7, 3.2))
ax.plot(turns, plain.input_tokens, label="every result inline")
ax.plot(turns, wrapped.input_tokens, label="offloaded above 2,000 chars")
ax.set_xlabel("request")
ax.set_ylabel("input tokens")
ax.legend()
plt.show()

# %% [markdown]
# Assert on the slope, not on the last request: the slope is what offloading changes.
#
# **The attack, against your check.** The same poisoned page and the same obedient model,
# with `read_artifact` served by your `read`:

# %%
guarded = Offloader(root)


def guarded_tools(name, args):
    if name == "read_artifact":
        return guarded.read(args["path"])
    return offload.POISONED_RESULT.format(path=link)


print("model's answer:", offload.run_task(offload.obedient, tool=guarded_tools).answer)

# %% [markdown]
# ## Graded tests
#
# One cell per property. Each shows a line or two; the grading runs more cases. Every
# cell works in its own temporary folder.

# %% id="absolute_path_refused" kind="tests" points=1
import json
import os
import tempfile

def _read(off, *args, **kwargs):
    try:
        return off.read(*args, **kwargs)
    except Exception as exc:
        raise AssertionError(f"read raised {type(exc).__name__} ({exc}); it must return "
                             "'Error: ...' for a refused path, never raise") from None


_base = tempfile.mkdtemp(prefix="lab08-t-")
off = Offloader(os.path.join(_base, "artifacts"))
assert _read(off, "/etc/passwd").startswith("Error:"), \
    "read('/etc/passwd') was served: an absolute path outside root must get 'Error: ...'"
### BEGIN HIDDEN TESTS
from course.observe import outcome, record

_paths = ["/etc/hostname", "/", os.path.join(_base, "other.txt")]
rec = record(shown=outcome(off.read, "/etc/passwd"), paths=_paths,
             contained=[outcome(off._contained, _p) for _p in _paths],
             reads=[outcome(off.read, _p) for _p in _paths])
### JUDGE

def refused(got, what):
    """Assert that a recorded read() outcome is a returned 'Error: ...' string."""
    if got["raised"] is not None:
        raise AssertionError(f"read raised {got['raised']['type']} ({got['raised']['message']}); "
                             "it must return 'Error: ...' for a refused path, never raise")
    assert isinstance(got["value"], str) and got["value"].startswith("Error:"), what


def not_contained(got, what):
    """Assert that a recorded _contained() outcome is the bool False."""
    if got["raised"] is not None:
        raise AssertionError(f"_contained raised {got['raised']['type']} "
                             f"({got['raised']['message']}); it returns a bool and never raises")
    assert got["value"] is False, what


refused(rec["shown"], "read('/etc/passwd') was served: an absolute path outside root must get "
        "'Error: ...'")
for p, inside, got in zip(rec["paths"], rec["contained"], rec["reads"], strict=True):
    not_contained(inside, f"_contained({p!r}) is not False: a path outside root is never "
                  "contained")
    refused(got, f"read({p!r}) was served, not refused")
### END HIDDEN TESTS

# %% id="sibling_prefix_refused" kind="tests" points=2
import json
import os
import tempfile

def _read(off, *args, **kwargs):
    try:
        return off.read(*args, **kwargs)
    except Exception as exc:
        raise AssertionError(f"read raised {type(exc).__name__} ({exc}); it must return "
                             "'Error: ...' for a refused path, never raise") from None


_base = tempfile.mkdtemp(prefix="lab08-t-")
_root = os.path.join(_base, "artifacts")
off = Offloader(_root)
os.makedirs(_root + "-evil")
with open(os.path.join(_root + "-evil", "secret.txt"), "w") as _f:
    _f.write("tenant-b api key\n")
_out = _read(off, os.path.join(_root + "-evil", "secret.txt"))
assert _out.startswith("Error:"), (
    "sibling prefix <root>-evil/secret.txt was read: compare path components "
    f"(commonpath), not strings (startswith); got {_out[:40]!r}")
### BEGIN HIDDEN TESTS
from course.observe import outcome, record

os.makedirs(_root + "2")
with open(os.path.join(_root + "2", "x.txt"), "w") as _f:
    _f.write("other folder\n")
_paths = [os.path.join(_root + "2", "x.txt"), _root + "-evil/secret.txt"]
rec = record(shown=_out, base=_base, root=_root, paths=_paths,
             contained=[outcome(off._contained, _p) for _p in _paths],
             reads=[outcome(off.read, _p) for _p in _paths])
### JUDGE

def refused(got, what):
    """Assert that a recorded read() outcome is a returned 'Error: ...' string."""
    if got["raised"] is not None:
        raise AssertionError(f"read raised {got['raised']['type']} ({got['raised']['message']}); "
                             "it must return 'Error: ...' for a refused path, never raise")
    assert isinstance(got["value"], str) and got["value"].startswith("Error:"), what


def not_contained(got, what):
    """Assert that a recorded _contained() outcome is the bool False."""
    if got["raised"] is not None:
        raise AssertionError(f"_contained raised {got['raised']['type']} "
                             f"({got['raised']['message']}); it returns a bool and never raises")
    assert got["value"] is False, what


refused({"value": rec["shown"], "raised": None},
        "sibling prefix <root>-evil/secret.txt was read: compare path components "
        f"(commonpath), not strings (startswith); got {str(rec['shown'])[:40]!r}")
cut = len(rec["base"])
for p, inside, got in zip(rec["paths"], rec["contained"], rec["reads"], strict=True):
    not_contained(inside, f"_contained says {p[cut:]!r} is inside {rec['root'][cut:]!r}: a "
                  "folder whose name merely extends root is a sibling, not a child")
    refused(got, f"sibling {p[cut:]!r} was served")
### END HIDDEN TESTS

# %% id="symlink_refused" kind="tests" points=2
import json
import os
import tempfile

def _read(off, *args, **kwargs):
    try:
        return off.read(*args, **kwargs)
    except Exception as exc:
        raise AssertionError(f"read raised {type(exc).__name__} ({exc}); it must return "
                             "'Error: ...' for a refused path, never raise") from None


_base = tempfile.mkdtemp(prefix="lab08-t-")
_root = os.path.join(_base, "artifacts")
off = Offloader(_root)
with open(os.path.join(_base, "secret.txt"), "w") as _f:
    _f.write("tenant-b api key\n")
os.symlink(os.path.join(_base, "secret.txt"), os.path.join(_root, "innocent.txt"))
_out = _read(off, os.path.join(_root, "innocent.txt"))
assert _out.startswith("Error:"), (
    "a symlink planted inside root was followed: resolve links with realpath before "
    f"checking; got {_out[:40]!r}")
### BEGIN HIDDEN TESTS
from course.observe import outcome, record

os.symlink(_base, os.path.join(_root, "up"))
_via_dir = os.path.join(_root, "up", "secret.txt")
os.symlink("/etc/passwd", os.path.join(_root, "passwd.txt"))
rec = record(shown=_out, via_dir_contained=outcome(off._contained, _via_dir),
             via_dir_read=outcome(off.read, _via_dir),
             passwd=outcome(off.read, os.path.join(_root, "passwd.txt")))
### JUDGE

def refused(got, what):
    """Assert that a recorded read() outcome is a returned 'Error: ...' string."""
    if got["raised"] is not None:
        raise AssertionError(f"read raised {got['raised']['type']} ({got['raised']['message']}); "
                             "it must return 'Error: ...' for a refused path, never raise")
    assert isinstance(got["value"], str) and got["value"].startswith("Error:"), what


def not_contained(got, what):
    """Assert that a recorded _contained() outcome is the bool False."""
    if got["raised"] is not None:
        raise AssertionError(f"_contained raised {got['raised']['type']} "
                             f"({got['raised']['message']}); it returns a bool and never raises")
    assert got["value"] is False, what


refused({"value": rec["shown"], "raised": None},
        "a symlink planted inside root was followed: resolve links with realpath before "
        f"checking; got {str(rec['shown'])[:40]!r}")
why = ("a symlinked FOLDER inside root (root/up -> its parent) let secret.txt through; "
       "realpath resolves every component, abspath none")
not_contained(rec["via_dir_contained"], why)
refused(rec["via_dir_read"], why)
refused(rec["passwd"], "root/passwd.txt -> /etc/passwd was served")
### END HIDDEN TESTS

# %% id="traversal_refused" kind="tests" points=1
import json
import os
import tempfile

def _read(off, *args, **kwargs):
    try:
        return off.read(*args, **kwargs)
    except Exception as exc:
        raise AssertionError(f"read raised {type(exc).__name__} ({exc}); it must return "
                             "'Error: ...' for a refused path, never raise") from None


_base = tempfile.mkdtemp(prefix="lab08-t-")
_root = os.path.join(_base, "artifacts")
off = Offloader(_root)
with open(os.path.join(_base, "secret.txt"), "w") as _f:
    _f.write("outside\n")
assert _read(off, os.path.join(_root, "..", "secret.txt")).startswith("Error:"), \
    "root/../secret.txt was served: resolve .. before checking containment"
### BEGIN HIDDEN TESTS
from course.observe import outcome, record

_paths = [os.path.join(_root, "..", "..", "..", "etc", "passwd"),
          os.path.join(_root, "a", "..", "..", "secret.txt")]
rec = record(shown=outcome(off.read, os.path.join(_root, "..", "secret.txt")), base=_base,
             paths=_paths, contained=[outcome(off._contained, _p) for _p in _paths],
             reads=[outcome(off.read, _p) for _p in _paths])
### JUDGE

def refused(got, what):
    """Assert that a recorded read() outcome is a returned 'Error: ...' string."""
    if got["raised"] is not None:
        raise AssertionError(f"read raised {got['raised']['type']} ({got['raised']['message']}); "
                             "it must return 'Error: ...' for a refused path, never raise")
    assert isinstance(got["value"], str) and got["value"].startswith("Error:"), what


def not_contained(got, what):
    """Assert that a recorded _contained() outcome is the bool False."""
    if got["raised"] is not None:
        raise AssertionError(f"_contained raised {got['raised']['type']} "
                             f"({got['raised']['message']}); it returns a bool and never raises")
    assert got["value"] is False, what


refused(rec["shown"], "root/../secret.txt was served: resolve .. before checking containment")
cut = len(rec["base"])
for p, inside, got in zip(rec["paths"], rec["contained"], rec["reads"], strict=True):
    not_contained(inside, f"_contained accepted a traversal: {p[cut:]!r}")
    refused(got, f"traversal {p[cut:]!r} was served")
### END HIDDEN TESTS

# %% id="legitimate_read_works" kind="tests" points=2
import json
import os
import tempfile

_base = tempfile.mkdtemp(prefix="lab08-t-")
_root = os.path.join(_base, "artifacts")
off = Offloader(_root)
off.wrap("dump", "\n".join(f"row {i}" for i in range(400)))
_files = os.listdir(_root)
assert len(_files) == 1, f"wrap of a 400-line payload must write one file in root: {_files}"
_out = off.read(os.path.join(_root, _files[0]), 0, 2)
assert _out == "[lines 0-2 of 400]\nrow 0\nrow 1", (
    f"a read inside root must be served, not refused; read(path, 0, 2) gave {_out[:50]!r}")
### BEGIN HIDDEN TESTS
from course.observe import outcome, record

_path = os.path.join(_root, _files[0])
_inside = outcome(off._contained, _path)
_past_end = outcome(off.read, _path, 398, 10)
_defaults = outcome(off.read, _path)
_relative = outcome(off.read, os.path.relpath(_path), 5, 1)
_fresh = os.path.join(_base, "fresh", "nested", "root")
_off2 = Offloader(_fresh)
_fresh_made = os.path.isdir(_fresh)
_missing = outcome(off.read, os.path.join(_root, "missing.txt"))
with open(os.path.join(_root, "real.txt"), "w") as _f:
    _f.write("inside\n")
os.symlink(os.path.join(_root, "real.txt"), os.path.join(_root, "alias.txt"))
rec = record(files=_files, shown=_out, inside=_inside, past_end=_past_end,
             defaults=_defaults, relative=_relative, fresh_made=_fresh_made, missing=_missing,
             alias=outcome(off.read, os.path.join(_root, "alias.txt")),
             dotdot=outcome(off._contained, os.path.join(_root, "sub", "..", "f.txt")))
### JUDGE
def served(got, what):
    """The value of a recorded call that must return a string, never raise."""
    if got["raised"] is not None:
        raise AssertionError(f"{what}: it raised {got['raised']['type']} "
                             f"({got['raised']['message']}); read never raises")
    return got["value"] if isinstance(got["value"], str) else repr(got["value"])


assert len(rec["files"]) == 1, (
    f"wrap of a 400-line payload must write one file in root: {rec['files']}")
assert rec["shown"] == "[lines 0-2 of 400]\nrow 0\nrow 1", (
    f"a read inside root must be served, not refused; read(path, 0, 2) gave "
    f"{str(rec['shown'])[:50]!r}")
inside = rec["inside"]
assert inside["raised"] is None and inside["value"] is True, (
    "_contained refused a file that wrap itself wrote")
got = served(rec["past_end"], "read(path, 398, 10)")
assert got == "[lines 398-400 of 400]\nrow 398\nrow 399", (
    f"a window running past the end must stop at the last line: {got!r}")
assert served(rec["defaults"], "read(path)").startswith("[lines 0-200 of 400]\nrow 0\n"), (
    "the defaults are offset=0, limit=200")
assert served(rec["relative"], "read(relative path, 5, 1)") == "[lines 5-6 of 400]\nrow 5", (
    "a relative path to the same file must be served too")
assert rec["fresh_made"] is True, (
    "Offloader(root) must create root (and its parents) when it is missing")
assert served(rec["missing"], "read(root/missing.txt)").startswith("Error:"), (
    "a missing file inside root must give 'Error: ...', not raise")
assert served(rec["alias"], "read(root/alias.txt)").startswith("[lines 0-1 of 1]"), (
    "a link inside root that points to a file inside root must still be readable")
dotdot = rec["dotdot"]
assert dotdot["raised"] is None and dotdot["value"] is True, (
    "root/sub/../f.txt resolves to root/f.txt, which IS inside root")
### END HIDDEN TESTS

# %% id="offset_limit_validated" kind="tests" points=2
import json
import os
import tempfile

_base = tempfile.mkdtemp(prefix="lab08-t-")
_root = os.path.join(_base, "artifacts")
off = Offloader(_root)
off.wrap("dump", "\n".join(f"row {i}" for i in range(400)))
_path = os.path.join(_root, os.listdir(_root)[0])
_out = off.read(_path, offset=-5)
assert _out.startswith("Error:"), (
    f"offset=-5 was served (a negative slice reads from the END): got {_out[:40]!r}")
### BEGIN HIDDEN TESTS
from course.observe import outcome, record

_kws = [{"limit": 0}, {"limit": -1}, {"limit": 501}, {"limit": 10**6},
        {"offset": "5"}, {"limit": "10"}, {"offset": 1.5}, {"offset": True},
        {"offset": None}]
rec = record(shown=_out, kws=[repr(_kw) for _kw in _kws],
             bad=[outcome(off.read, _path, **_kw) for _kw in _kws],
             limit500=outcome(off.read, _path, 0, 500), limit1=outcome(off.read, _path, 0, 1),
             at_end=outcome(off.read, _path, 400, 5))
### JUDGE
def served(got, what):
    """The value of a recorded call that must return a string, never raise."""
    if got["raised"] is not None:
        raise AssertionError(f"{what} raised {got['raised']['type']}; return 'Error: ...' "
                             "for bad offset/limit, never raise")
    return got["value"]


assert isinstance(rec["shown"], str) and rec["shown"].startswith("Error:"), (
    f"offset=-5 was served (a negative slice reads from the END): got "
    f"{str(rec['shown'])[:40]!r}")
for kw, got in zip(rec["kws"], rec["bad"], strict=True):
    value = served(got, f"read(path, **{kw})")
    assert isinstance(value, str) and value.startswith("Error:"), (
        f"read(path, **{kw}) was served; offset must be an int >= 0, limit an int 1..500")
value = served(rec["limit500"], "read(path, 0, 500)")
assert isinstance(value, str) and value.startswith("[lines 0-400 of 400]"), (
    "limit=500 is allowed")
assert served(rec["limit1"], "read(path, 0, 1)") == "[lines 0-1 of 400]\nrow 0", (
    "limit=1 is allowed")
value = served(rec["at_end"], "read(path, 400, 5)")
assert value == "[lines 400-400 of 400]\n", (
    f"an offset at the end gives an empty window, not an error: {value!r}")
### END HIDDEN TESTS

# %% id="small_results_unchanged" kind="tests" points=2
import json
import os
import tempfile

_base = tempfile.mkdtemp(prefix="lab08-t-")
_root = os.path.join(_base, "artifacts")
off = Offloader(_root)
assert off.wrap("get_account", "plan: pro\nseats: 12") == "plan: pro\nseats: 12", \
    "a 20-char result was changed: results of <= threshold chars pass through unchanged"
### BEGIN HIDDEN TESTS
from course.observe import record

_shown = off.wrap("get_account", "plan: pro\nseats: 12")
_edge = off.wrap("t", "x" * 2000)
_small_dict = off.wrap("t", {"id": 7, "tags": ["a"]})
_files_small, _saved_small = os.listdir(_root), off.saved_chars
_big = off.wrap("t", "y" * 2001)
_saved_big = off.saved_chars
_low = Offloader(os.path.join(_base, "low"), threshold=50)
rec = record(shown=_shown, edge=_edge, small_dict=_small_dict, files_small=_files_small,
             saved_small=_saved_small, big=_big, saved_big=_saved_big,
             low51=_low.wrap("t", "z" * 51), low50=_low.wrap("t", "z" * 50))
### JUDGE
import json

assert rec["shown"] == "plan: pro\nseats: 12", (
    "a 20-char result was changed: results of <= threshold chars pass through unchanged")
assert rec["edge"] == "x" * 2000, (
    "a result of exactly threshold=2000 chars must pass unchanged (<=, not <)")
assert rec["small_dict"] == json.dumps({"id": 7, "tags": ["a"]}, indent=2), (
    "a small dict must come back as json.dumps(payload, indent=2)")
assert rec["files_small"] == [] and rec["saved_small"] == 0, (
    f"small results wrote files {rec['files_small']} / saved_chars={rec['saved_small']}; "
    "nothing is offloaded at or below the threshold")
assert rec["big"] != "y" * 2001 and rec["saved_big"] == 2001, (
    f"2001 chars must be offloaded and counted in saved_chars (got {rec['saved_big']})")
assert rec["low51"] != "z" * 51 and rec["low50"] == "z" * 50, (
    "use the threshold argument, not a hard-coded 2000")
### END HIDDEN TESTS

# %% id="pointer_not_thin" kind="tests" points=2
import json
import os
import tempfile

_base = tempfile.mkdtemp(prefix="lab08-t-")
_root = os.path.join(_base, "artifacts")
off = Offloader(_root)
_rows = [f"{i:04d} | order {i} | shipped" for i in range(1, 301)]
_ptr = off.wrap("query_orders", "\n".join(_rows))
for _want in (_rows[0], _rows[7], _rows[-1], "read_artifact"):
    assert _want in _ptr, f"the pointer lacks {_want!r}: it needs head, tail and read_artifact"
### BEGIN HIDDEN TESTS
from course.observe import record

_listed = os.listdir(_root)
_path = os.path.join(_root, _listed[0]) if _listed else None
_saved = None
if _path is not None:
    with open(_path, encoding="utf-8") as _f:
        _saved = _f.read()
_big = {"rows": [{"id": i, "note": "n" * 30} for i in range(80)]}
rec = record(ptr=_ptr, files=_listed, path=_path, saved=_saved,
             ptr2=off.wrap("export", _big))
### JUDGE
import json

rows = [f"{i:04d} | order {i} | shipped" for i in range(1, 301)]
text = "\n".join(rows)
ptr = rec["ptr"]
assert isinstance(ptr, str), f"wrap must return a str, got {ptr!r}"[:200]
for want in (rows[0], rows[7], rows[-1], "read_artifact"):
    assert want in ptr, f"the pointer lacks {want!r}: it needs head, tail and read_artifact"
path = rec["path"]
assert path is not None, (
    f"wrap of a 300-line payload must write its file directly inside root: {rec['files']}")
assert ptr.count(path) >= 2, (
    "the pointer must name the artifact's path (as written, os.path.join(root, name)) "
    "twice: where it is, and in the read_artifact hint")
assert "query_orders" in ptr and "300" in ptr and (
        str(len(text)) in ptr or f"{len(text):,}" in ptr), (
    f"the pointer must give the tool name, 300 lines and {len(text)} chars")
for r in rows[:8] + rows[-4:]:
    assert r in ptr, f"head/tail line {r!r} is missing from the pointer"
for r in (rows[8], rows[150], rows[-5]):
    assert r not in ptr, f"{r!r} is a middle line: the pointer holds 8 + 4 lines only"
assert rec["saved"] == text, "the artifact file must hold the payload exactly"
big = {"rows": [{"id": i, "note": "n" * 30} for i in range(80)]}
lines2 = json.dumps(big, indent=2).splitlines()
ptr2 = rec["ptr2"]
assert isinstance(ptr2, str) and lines2[1] in ptr2 and lines2[-1] in ptr2, (
    "a big dict must be offloaded as its json.dumps(indent=2) text, head and tail shown")
### END HIDDEN TESTS

# %% id="tail_only_when_more_than_12" kind="tests" points=1
import json
import os
import tempfile

_base = tempfile.mkdtemp(prefix="lab08-t-")
off = Offloader(os.path.join(_base, "artifacts"))
_rows = [f"line {i:02d} " + "=" * 300 for i in range(1, 11)]
_ptr = off.wrap("read_log", "\n".join(_rows))
_twice = [r[:7] for r in _rows if _ptr.count(r) > 1]
assert not _twice, f"10-line result: {_twice} appear twice; no tail unless there are > 12"
### BEGIN HIDDEN TESTS
from course.observe import record

_ptrs = {}
for _n in (12, 13, 20):
    _rows_n = [f"L{_n}-{i:02d} " + "-" * 250 for i in range(1, _n + 1)]
    _ptrs[_n] = Offloader(os.path.join(_base, f"n{_n}")).wrap("read_log", "\n".join(_rows_n))
rec = record(shown=_ptr, ptrs=_ptrs)
### JUDGE
rows = [f"line {i:02d} " + "=" * 300 for i in range(1, 11)]
ptr = rec["shown"]
assert isinstance(ptr, str), f"wrap must return a str, got {ptr!r}"[:200]
twice = [r[:7] for r in rows if ptr.count(r) > 1]
assert not twice, f"10-line result: {twice} appear twice; no tail unless there are > 12"
for n in (12, 13, 20):
    rows = [f"L{n}-{i:02d} " + "-" * 250 for i in range(1, n + 1)]
    ptr = rec["ptrs"][str(n)]
    assert isinstance(ptr, str), f"wrap must return a str, got {ptr!r}"[:200]
    counts = [ptr.count(r) for r in rows]
    assert max(counts) == 1, f"{n} lines: some line appears twice in the pointer"
    assert counts[:8] == [1] * 8, f"{n} lines: the first 8 lines must all be shown"
    if n > 12:
        assert counts[-4:] == [1] * 4, f"{n} lines (> 12): the last 4 lines must be shown"
    else:
        assert sum(counts) == 8, f"{n} lines (<= 12): show the 8-line head and no tail"
### END HIDDEN TESTS

# %% [markdown] kind="readonly" id="explain_prompt"
# ## Explain (3 points, graded by hand)
#
# A log tool returns 120,000 characters (1,500 lines) at turn 4 of a 25-turn run, and your
# offloader turns it into a pointer of 1,400 characters. At this course's rate of 4
# characters per token and $5 per million input tokens, how much input does offloading
# keep out of the run's requests, and what is it worth? Then: the artifact root is
# `/srv/agent/art`, and a planted page asks for `/srv/agent/art-old/keys.txt`. Which check
# admits it, which refuses it, and why? Four to six sentences.

# %% [markdown] id="explain_offload" kind="manual" points=3
# ### BEGIN SOLUTION
# **Model answer.** The result enters at turn 4, so it is resent with each of the 21
# requests from turn 5 to 25. Inline that is 21 × 120,000 = 2,520,000 characters, about
# 630,000 tokens; as a pointer it is 21 × 1,400 = 29,400 characters, about 7,350 tokens.
# Offloading keeps about 622,650 tokens out, roughly $3.11 at $5 per million, because it
# shrinks what each turn appends rather than trimming it later. The string check
# `abspath(path).startswith(abspath(root))` admits `/srv/agent/art-old/keys.txt` because the
# string `/srv/agent/art-old` starts with the string `/srv/agent/art`; `commonpath` of the
# two realpaths is `/srv/agent`, not the root, so the component check refuses it. The
# attacker chose the path through text the model read, so only the check decides.
#
# **Mark scheme (3 points).**
# * 1 point: the count of resends (21, or 22 if they count turn 4's own request with a
#   stated reason) and the token difference, about 620,000 tokens, about $3.
# * 1 point: the sibling prefix is admitted by `startswith` and refused by `commonpath`,
#   with the reason (characters against path components).
# * 1 point: why it matters: the path comes from the model, which an injected page can
#   steer, so containment must hold whatever the model was told.
# * No point for "offloading saves tokens" without the arithmetic.
# ### END SOLUTION

# %% [markdown] kind="instructor"
# **For the lecturer.** Run section 2's five attempts first and ask the room which ones
# the string check admits before printing. Then live-code `_contained` and rerun them.
# The `startswith_containment` mutant in the course's mutants is the one to grade in
# front of the room: it passes the `/etc/passwd` and traversal cells and loses only the
# sibling and symlink cells.
