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
#   pointer is exactly the string `read` expects). Every `/` and `\` in `tool_name` becomes
#   `_` in the file name (`mcp/search` is saved as `mcp_search-….txt`), so the file always
#   lands directly inside `root`; the pointer shows the tool name as given. Two different
#   payloads get two different files. `wrap` adds `len(text)` to `saved_chars` and
#   returns a pointer that holds:
#   * the tool name, the number of lines (`len(text.splitlines())`) and of characters;
#   * the file's path;
#   * the first 8 lines, verbatim;
#   * the last 4 lines, verbatim, **only when there are more than 12 lines** (with 12 or
#     fewer, a tail would repeat lines the head already shows);
#   * how to read the rest: the word `read_artifact` and the path again.
#   No other line of the payload appears in the pointer, and none appears twice.
# * The choice depends on `len(text)` alone: a text over the threshold is offloaded even
#   when its pointer comes out longer than the text (one long line is its own head).
#
# **`read(path, offset=0, limit=200)`** never raises. It returns a string that starts with
# `Error:` when
# * `path` does not resolve inside `root` (`_contained` is False),
# * `offset` is not an `int` or is below 0,
# * `limit` is not an `int` or is outside 1…500 (for both, a `bool` is not an `int`),
# * or there is no such file (a folder, `root` itself included, is not a file).
#
# Otherwise it returns `"[lines {offset}-{end} of {total}]\n"` followed by lines
# `offset` to `end - 1` (0-based) of the file, joined with `"\n"`, where
# `end = max(offset, min(offset + limit, total))`. An offset at or past the end gives an
# empty window, not an error: `read(path, 500)` on a 400-line file returns
# `"[lines 500-500 of 400]\n"`.
#
# **`_contained(path)`** resolves symbolic links and `..` in both `root` and `path`
# (`os.path.realpath`) and compares **path components** (`os.path.commonpath`), not
# strings. A relative path is taken from the current folder, as `open` would. `root`
# itself counts as inside root. It returns a `bool` and never raises.

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
# to run. Once `_contained` says yes, opening `path` or `os.path.realpath(path)` reads the
# same file. Neither stops a link swapped between the check and the open: closing that gap
# (`os.open` with `O_NOFOLLOW`, component by component) is beyond this lab, whose check
# judges the links in place when the model asks.

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
        safe = tool_name.replace("/", "_").replace("\\", "_")
        path = os.path.join(self.root, f"{safe}-{digest}.txt")
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

# %% [markdown]
# A figure often quoted for this dump is a 1,573-character pointer, 24× smaller. That
# pointer words its framing slightly differently; the reference pointer here comes out at
# 1,555. Your own wording gives a figure within a few dozen characters of both; what
# matters is the order of magnitude, and that the head and tail survive.
#
# **The growth, flattened.** The same 30-turn task, every result through `wrap`:

# %%
task_off = Offloader(os.path.join(base, "task"))
# Every pointer names its file's path, so its tokens depend on the root folder: price the
# run at the pinned root, as above, so the figures are the same on every machine.
wrapped = offload.run_task(offload.planned, wrap=lambda name, result: task_off.wrap(
    name, result).replace(task_off.root, offload.PINNED_ROOT))
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


def _outside(off, path, what):
    try:
        got = off._contained(path)
    except Exception as exc:
        raise AssertionError(f"_contained raised {type(exc).__name__} ({exc}) on {what}; it "
                             "returns a bool and never raises") from None
    assert got is False, f"_contained must be False for {what}: got {got!r}"


_base = tempfile.mkdtemp(prefix="lab08-t-")
off = Offloader(os.path.join(_base, "artifacts"))
_out = _read(off, "/etc/passwd")
assert isinstance(_out, str) and _out.startswith("Error:"), (
    f"absolute path: read('/etc/passwd') must return 'Error: ...', got {_out!r}")
_outside(off, "/etc/passwd", "'/etc/passwd'")
for _odd, _what in ((None, "None"), (7, "the int 7"), ("art\x00x", "a path holding a NUL")):
    _outside(off, _odd, _what)
    _said = _read(off, _odd)
    assert isinstance(_said, str) and _said.startswith("Error:"), (
        f"read of {_what} must return 'Error: ...', got {_said!r}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, outcome, record

h = hidden_inputs(abs_path=("/etc/hostname", "/etc/hosts", "/etc/shadow", "/usr/bin/env",
                            "/proc/self/environ", "/root/.ssh/id_rsa", "/var/log/syslog", "/home"),
                  up=range(0, 8), beside=("other.txt", "notes.md", "tenant-b.csv", "keys.json"),
                  odd_float=(3.5, 0.25, 2.0, 1e9, -7.5), odd_bytes=(b"/etc", b"/tmp", b"..", b"/"),
                  odd_nul=("x\x00y", "\x00", "art/\x00/f.txt", "/etc/passwd\x00.txt"))
_up = _base
for _ in range(h.up):
    _up = os.path.dirname(_up)
_paths = [h.abs_path, _up, os.path.join(_base, h.beside)]
_odd_paths = [None, h.odd_float, h.odd_bytes, h.odd_nul]
rec = record(odd=[[repr(_p), outcome(off._contained, _p), outcome(off.read, _p)]
                  for _p in _odd_paths],
             shown=outcome(off.read, "/etc/passwd"), paths=_paths,
             contained=[outcome(off._contained, _p) for _p in _paths],
             reads=[outcome(off.read, _p) for _p in _paths])
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(abs_path=("/etc/hostname", "/etc/hosts", "/etc/shadow", "/usr/bin/env",
                            "/proc/self/environ", "/root/.ssh/id_rsa", "/var/log/syslog", "/home"),
                  up=range(0, 8), beside=("other.txt", "notes.md", "tenant-b.csv", "keys.json"),
                  odd_float=(3.5, 0.25, 2.0, 1e9, -7.5), odd_bytes=(b"/etc", b"/tmp", b"..", b"/"),
                  odd_nul=("x\x00y", "\x00", "art/\x00/f.txt", "/etc/passwd\x00.txt"))


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
assert len(rec["paths"]) == 3 and rec["paths"][0] == h.abs_path, (
    f"the absolute path {h.abs_path!r} was not the one checked")
odd = [repr(v) for v in (None, h.odd_float, h.odd_bytes, h.odd_nul)]
assert [p for p, *_ in rec["odd"]] == odd, "the values that are not paths were not the ones checked"
for p, inside, got in zip(rec["paths"], rec["contained"], rec["reads"], strict=True):
    not_contained(inside, f"_contained({p!r}) is not False: a path outside root is never "
                  "contained")
    refused(got, f"read({p!r}) was served, not refused")
for p, inside, got in rec["odd"]:
    not_contained(inside, f"_contained({p}) is not False: it returns False for what is not a "
                  "path (catch TypeError and ValueError), never raises")
    refused(got, f"read({p}) was served, not refused")
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


def _outside(off, path, what):
    try:
        got = off._contained(path)
    except Exception as exc:
        raise AssertionError(f"_contained raised {type(exc).__name__} ({exc}) on {what}; it "
                             "returns a bool and never raises") from None
    assert got is False, f"_contained must be False for {what}: got {got!r}"


_base = tempfile.mkdtemp(prefix="lab08-t-")
_root = os.path.join(_base, "artifacts")
off = Offloader(_root)
os.makedirs(_root + "-evil")
with open(os.path.join(_root + "-evil", "secret.txt"), "w") as _f:
    _f.write("tenant-b api key\n")
_out = _read(off, os.path.join(_root + "-evil", "secret.txt"))
assert isinstance(_out, str) and _out.startswith("Error:"), (
    "sibling prefix: <root>-evil/secret.txt must be refused (compare path components with "
    f"commonpath, not strings with startswith); got {_out!r}")
_outside(off, os.path.join(_root + "-evil", "secret.txt"), "the sibling <root>-evil/secret.txt")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, outcome, record

h = hidden_inputs(sibling=("2", "-old", "_bak", ".d", "-evil2", "s", "-archive", "~", "0"),
                  sibling_file=("x.txt", "keys.txt", "notes.md", "dump.json", "passwd"))
os.makedirs(_root + h.sibling)
with open(os.path.join(_root + h.sibling, h.sibling_file), "w") as _f:
    _f.write("other folder\n")
_paths = [os.path.join(_root + h.sibling, h.sibling_file), _root + "-evil/secret.txt"]
rec = record(shown=_out, base=_base, root=_root, paths=_paths,
             contained=[outcome(off._contained, _p) for _p in _paths],
             reads=[outcome(off.read, _p) for _p in _paths])
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(sibling=("2", "-old", "_bak", ".d", "-evil2", "s", "-archive", "~", "0"),
                  sibling_file=("x.txt", "keys.txt", "notes.md", "dump.json", "passwd"))


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
wants = [f"{rec['root']}{h.sibling}/{h.sibling_file}", f"{rec['root']}-evil/secret.txt"]
assert rec["paths"] == wants, f"the siblings checked were not {[w[cut:] for w in wants]}"
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


def _outside(off, path, what):
    try:
        got = off._contained(path)
    except Exception as exc:
        raise AssertionError(f"_contained raised {type(exc).__name__} ({exc}) on {what}; it "
                             "returns a bool and never raises") from None
    assert got is False, f"_contained must be False for {what}: got {got!r}"


_base = tempfile.mkdtemp(prefix="lab08-t-")
_root = os.path.join(_base, "artifacts")
off = Offloader(_root)
with open(os.path.join(_base, "secret.txt"), "w") as _f:
    _f.write("tenant-b api key\n")
os.symlink(os.path.join(_base, "secret.txt"), os.path.join(_root, "innocent.txt"))
_out = _read(off, os.path.join(_root, "innocent.txt"))
assert isinstance(_out, str) and _out.startswith("Error:"), (
    "symlink: root/innocent.txt -> ../secret.txt must be refused (resolve links with "
    f"realpath before checking); got {_out!r}")
_outside(off, os.path.join(_root, "innocent.txt"), "root/innocent.txt, a link to ../secret.txt")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, outcome, record

h = hidden_inputs(dir_link=("up", "parent", "back", "..up", "shared", "mnt"),
                  far_file=("keys.txt", "token", "db.env", "id_rsa", "invoices.csv"),
                  file_link=("passwd.txt", "notes.md", "users.csv", "report.txt", "a"),
                  file_target=("/etc/passwd", "far_file"))
with open(os.path.join(_base, h.far_file), "w") as _f:
    _f.write("tenant-b invoices\n")
os.symlink(_base, os.path.join(_root, h.dir_link))
_via_dir = os.path.join(_root, h.dir_link, h.far_file)
_target = os.path.join(_base, h.far_file) if h.file_target == "far_file" else h.file_target
os.symlink(_target, os.path.join(_root, h.file_link))
rec = record(shown=_out, via_dir_contained=outcome(off._contained, _via_dir),
             via_dir_read=outcome(off.read, _via_dir),
             passwd=outcome(off.read, os.path.join(_root, h.file_link)))
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(dir_link=("up", "parent", "back", "..up", "shared", "mnt"),
                  far_file=("keys.txt", "token", "db.env", "id_rsa", "invoices.csv"),
                  file_link=("passwd.txt", "notes.md", "users.csv", "report.txt", "a"),
                  file_target=("/etc/passwd", "far_file"))


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
why = (f"a symlinked FOLDER inside root (root/{h.dir_link} -> its parent) let {h.far_file} "
       "through; realpath resolves every component, abspath none")
not_contained(rec["via_dir_contained"], why)
refused(rec["via_dir_read"], why)
target = f"../{h.far_file}" if h.file_target == "far_file" else h.file_target
refused(rec["passwd"], f"root/{h.file_link} -> {target} was served")
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


def _outside(off, path, what):
    try:
        got = off._contained(path)
    except Exception as exc:
        raise AssertionError(f"_contained raised {type(exc).__name__} ({exc}) on {what}; it "
                             "returns a bool and never raises") from None
    assert got is False, f"_contained must be False for {what}: got {got!r}"


_base = tempfile.mkdtemp(prefix="lab08-t-")
_root = os.path.join(_base, "artifacts")
off = Offloader(_root)
with open(os.path.join(_base, "secret.txt"), "w") as _f:
    _f.write("outside\n")
_out = _read(off, os.path.join(_root, "..", "secret.txt"))
assert isinstance(_out, str) and _out.startswith("Error:"), (
    f"traversal: root/../secret.txt must be refused (resolve .. first); got {_out!r}")
_outside(off, os.path.join(_root, "..", "secret.txt"), "root/../secret.txt")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, outcome, record

h = hidden_inputs(climb=range(3, 12), far=("etc/passwd", "etc/shadow", "root/.bashrc", "home"),
                  via=("a", "sub", "x", "deep", "tmp", "art"), back=range(2, 5))
_paths = [os.path.join(_root, *[".."] * h.climb, *h.far.split("/")),
          os.path.join(_root, *[h.via] * (h.back - 1), *[".."] * h.back, "secret.txt")]
rec = record(shown=outcome(off.read, os.path.join(_root, "..", "secret.txt")), base=_base,
             paths=_paths, contained=[outcome(off._contained, _p) for _p in _paths],
             reads=[outcome(off.read, _p) for _p in _paths])
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(climb=range(3, 12), far=("etc/passwd", "etc/shadow", "root/.bashrc", "home"),
                  via=("a", "sub", "x", "deep", "tmp", "art"), back=range(2, 5))


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
wants = ["/.." * h.climb + "/" + h.far, f"/{h.via}" * (h.back - 1) + "/.." * h.back + "/secret.txt"]
assert [p[cut + len("/artifacts"):] for p in rec["paths"]] == wants, (
    f"the traversals checked were not root{wants[0]} and root{wants[1]}")
for p, inside, got in zip(rec["paths"], rec["contained"], rec["reads"], strict=True):
    not_contained(inside, f"_contained accepted a traversal: {p[cut:]!r}")
    refused(got, f"traversal {p[cut:]!r} was served")
### END HIDDEN TESTS

# %% id="legitimate_read_works" kind="tests" points=2
import json
import os
import tempfile

def _served(what, fn, *args):
    try:
        return fn(*args)
    except Exception as exc:
        raise AssertionError(f"{what} raised {type(exc).__name__} ({exc}); read never raises "
                             "and _contained returns a bool") from None


_base = tempfile.mkdtemp(prefix="lab08-t-")
_root = os.path.join(_base, "made", "on", "demand")
off = Offloader(_root)
assert os.path.isdir(_root), "Offloader(root) must create root and its missing parents"
off.wrap("dump", "\n".join(f"row {i}" for i in range(400)))
_files = os.listdir(_root)
assert len(_files) == 1, f"wrap of a 400-line payload must write one file in root: {_files}"
_path = os.path.join(_root, _files[0])
_out = off.read(_path, 0, 2)
assert _out == "[lines 0-2 of 400]\nrow 0\nrow 1", (
    f"a read inside root must be served, not refused; read(path, 0, 2) gave {_out!r}")
_checks = [  # (call, args, expected result)
    ("_contained(path)", off._contained, (_path,), True),
    ("_contained(root)", off._contained, (_root,), True),
    ("read(path, 395, 10), a window past the last line", off.read, (_path, 395, 10),
     "[lines 395-400 of 400]\n" + "\n".join(f"row {i}" for i in range(395, 400))),
    ("read(path, 500, 10), an offset past the end", off.read, (_path, 500, 10),
     "[lines 500-500 of 400]\n"),
    ("read(relative path, 7, 2)", off.read, (os.path.relpath(_path), 7, 2),
     "[lines 7-9 of 400]\nrow 7\nrow 8"),
]
for _what, _fn, _args, _want in _checks:
    _got = _served(_what, _fn, *_args)
    assert _got == _want, f"{_what}: expected {_want!r}, got {_got!r}"
_got = _served("read(path)", off.read, _path)
assert isinstance(_got, str) and _got.startswith("[lines 0-200 of 400]\nrow 0\n") \
    and _got.endswith("\nrow 199"), (
    f"read(path) uses the defaults offset=0, limit=200: got {_got[:60]!r}...{_got[-20:]!r}")
for _what, _p in (("a missing file", os.path.join(_root, "nope.txt")), ("root itself", _root)):
    _got = _served(f"read({_what})", off.read, _p)
    assert isinstance(_got, str) and _got.startswith("Error:"), (
        f"no such file: read of {_what} must return 'Error: ...', got {_got!r}")
_real_root = os.path.join(_base, "real-root")
os.makedirs(_real_root)
os.symlink(_real_root, os.path.join(_base, "linked-root"))
_linked = Offloader(os.path.join(_base, "linked-root"))
_linked.wrap("dump", "\n".join(f"row {i}" for i in range(400)))
_lpath = os.path.join(_base, "linked-root", os.listdir(_real_root)[0])
_got = _served("read(path) under a linked root", _linked.read, _lpath, 0, 1)
assert _got == "[lines 0-1 of 400]\nrow 0", (
    f"root behind a symbolic link: a file wrap wrote there must be served, got {_got!r}; "
    "resolve links in root too (os.path.realpath(root))")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, outcome, record

h = hidden_inputs(past_at=range(391, 400), past_limit=range(10, 100), default_at=range(1, 200),
                  far_at=range(401, 100_000), rel_at=range(0, 400), depth=range(1, 6),
                  missing=("missing.txt", "gone.log", "nope", "old-0001.txt"),
                  real=("real.txt", "inside.md", "a.txt"), alias=("alias.txt", "link.txt", "b.lnk"),
                  alias_lines=range(1, 50), via_lines=range(260, 600), via_at=range(0, 260),
                  sub=("sub", "x", "tmp", "a b"), dot_file=("f.txt", "g.md", "new"))
_path = os.path.join(_root, _files[0])
_inside = outcome(off._contained, _path)
_past_end = outcome(off.read, _path, h.past_at, h.past_limit)
_defaults = outcome(off.read, _path, h.default_at)
_far = outcome(off.read, _path, h.far_at, 1)
_root_dot = outcome(off.read, os.path.join(_root, "."))
_root_sep = outcome(off._contained, _root + os.sep)
_relative = outcome(off.read, os.path.relpath(_path), h.rel_at, 1)
_fresh = os.path.join(_base, "fresh", *[f"nested{_i}" for _i in range(h.depth)], "root")
_off2 = Offloader(_fresh)
_fresh_made = os.path.isdir(_fresh)
_missing = outcome(off.read, os.path.join(_root, h.missing))
with open(os.path.join(_root, h.real), "w") as _f:
    _f.write("".join(f"inside {_i}\n" for _i in range(h.alias_lines)))
os.symlink(os.path.join(_root, h.real), os.path.join(_root, h.alias))
_real2 = os.path.join(_base, "real-root-2")
os.makedirs(os.path.join(_real2, "deep"))
os.symlink(os.path.join(_real2, "deep"), os.path.join(_base, "via-link"))
_via = Offloader(os.path.join(_base, "via-link"))
_via.wrap("dump", "\n".join(f"line {i}" for i in range(h.via_lines)))
_vpath = os.path.join(_base, "via-link", os.listdir(os.path.join(_real2, "deep"))[0])
rec = record(linked=outcome(_via.read, _vpath, h.via_at, 1),
             linked_inside=outcome(_via._contained, _vpath),
             files=_files, shown=_out, inside=_inside, past_end=_past_end,
             defaults=_defaults, relative=_relative, fresh_made=_fresh_made, missing=_missing,
             far=_far, root_dot=_root_dot, root_sep=_root_sep,
             alias=outcome(off.read, os.path.join(_root, h.alias)),
             dotdot=outcome(off._contained, os.path.join(_root, h.sub, "..", h.dot_file)))
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(past_at=range(391, 400), past_limit=range(10, 100), default_at=range(1, 200),
                  far_at=range(401, 100_000), rel_at=range(0, 400), depth=range(1, 6),
                  missing=("missing.txt", "gone.log", "nope", "old-0001.txt"),
                  real=("real.txt", "inside.md", "a.txt"), alias=("alias.txt", "link.txt", "b.lnk"),
                  alias_lines=range(1, 50), via_lines=range(260, 600), via_at=range(0, 260),
                  sub=("sub", "x", "tmp", "a b"), dot_file=("f.txt", "g.md", "new"))


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
a, n = h.past_at, h.past_limit
got = served(rec["past_end"], f"read(path, {a}, {n})")
want = f"[lines {a}-400 of 400]\n" + "\n".join(f"row {i}" for i in range(a, 400))
assert got == want, (  # the window stops at the last line
    f"read(path, {a}, {n}): a window running past the end must stop at the last line, "
    f"{want!r}; got {got!r}")
d = h.default_at
got = served(rec["defaults"], f"read(path, {d})")
assert got.startswith(f"[lines {d}-{d + 200} of 400]\nrow {d}\n") and got.endswith(
        f"\nrow {d + 199}"), (
    f"read(path, {d}) uses the default limit=200: got {got[:60]!r}...{got[-20:]!r}")
f = h.far_at
got = served(rec["far"], f"read(path, {f}, 1)")
assert got == f"[lines {f}-{f} of 400]\n", (
    f"an offset past the end gives an empty window [lines {f}-{f} of 400]: got {got!r}")
got = served(rec["root_dot"], "read(root/.)")
assert got.startswith("Error:"), f"root/. is a folder, not a file: got {got!r}"
root_sep = rec["root_sep"]
assert root_sep["raised"] is None and root_sep["value"] is True, (
    f"root itself (written with a trailing separator) is inside root: got {root_sep!r}")
r = h.rel_at
got = served(rec["relative"], f"read(relative path, {r}, 1)")
assert got == f"[lines {r}-{r + 1} of 400]\nrow {r}", (
    f"a relative path to the same file must be served too: read(relative path, {r}, 1) gave "
    f"{got!r}")
assert rec["fresh_made"] is True, (
    "Offloader(root) must create root (and its parents) when it is missing")
assert served(rec["missing"], f"read(root/{h.missing})").startswith("Error:"), (
    f"a missing file inside root (root/{h.missing}) must give 'Error: ...', not raise")
k = h.alias_lines
got = served(rec["alias"], f"read(root/{h.alias})")
assert got.startswith(f"[lines 0-{k} of {k}]\ninside 0"), (
    f"a link inside root (root/{h.alias} -> root/{h.real}, {k} lines) that points to a file "
    f"inside root must still be readable with the defaults; got {got[:40]!r}")
dotdot = rec["dotdot"]
assert dotdot["raised"] is None and dotdot["value"] is True, (
    f"root/{h.sub}/../{h.dot_file} resolves to root/{h.dot_file}, which IS inside root")
v, total = h.via_at, h.via_lines
assert served(rec["linked"], "read under a linked root") == (
        f"[lines {v}-{v + 1} of {total}]\nline {v}"), (
    f"root behind a symbolic link: a file wrap wrote there must be served (read(path, {v}, 1) "
    f"of its {total} lines); resolve links in root as well as in path")
assert rec["linked_inside"]["value"] is True, (
    "_contained is False for a file inside a root that sits behind a symbolic link")
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
assert isinstance(_out, str) and _out.startswith("Error:"), (
    f"offset=-5 was served (a negative slice reads from the END): got {_out!r}")
for _kw in ({"offset": -1}, {"offset": "3"}, {"offset": 2.0}, {"offset": False},
            {"limit": 0}, {"limit": 501}, {"limit": "20"}, {"limit": True}):
    try:
        _got = off.read(_path, **_kw)
    except Exception as exc:
        raise AssertionError(f"offset/limit check: read(path, **{_kw}) raised "
                             f"{type(exc).__name__} ({exc}); return 'Error: ...'") from None
    assert isinstance(_got, str) and _got.startswith("Error:"), (
        f"offset/limit check: read(path, **{_kw}) must return 'Error: ...' (offset an int "
        f">= 0, limit an int 1..500, no bool), got {_got[:80]!r}")
for _args, _head in (((_path, 0, 2), "[lines 0-2 of 400]\nrow 0\nrow 1"),
                     ((_path, 10, 500), "[lines 10-400 of 400]\nrow 10\n"),
                     ((_path, 399, 1), "[lines 399-400 of 400]\nrow 399")):
    _got = off.read(*_args)
    assert isinstance(_got, str) and _got.startswith(_head), (
        f"offset/limit check: offset 0 and limit 1..500 are allowed; read(path, "
        f"{_args[1]}, {_args[2]}) must start {_head!r}, got {_got[:60]!r}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, outcome, record

h = hidden_inputs(neg_limit=range(-1000, 0), huge_limit=range(502, 10**7),
                  neg_offset=range(-10**6, -1), str_offset=("5", "0", "12", " 3", "400"),
                  str_limit=("10", "200", "1", "500"), float_offset=(1.5, 0.0, 3.0, 7.25, 399.0),
                  float_limit=(100.0, 1.0, 500.0, 20.0, 2.5), one_at=range(0, 400),
                  wide_at=range(0, 400), end_limit=range(1, 501))
_kws = [{"limit": 0}, {"limit": h.neg_limit}, {"limit": 501}, {"limit": h.huge_limit},
        {"offset": h.str_offset}, {"limit": h.str_limit}, {"offset": h.float_offset},
        {"offset": True}, {"offset": None}, {"limit": None}, {"limit": h.float_limit},
        {"offset": h.neg_offset}]
rec = record(shown=_out, kws=[repr(_kw) for _kw in _kws],
             bad=[outcome(off.read, _path, **_kw) for _kw in _kws],
             limit500=outcome(off.read, _path, h.wide_at, 500),
             limit1=outcome(off.read, _path, h.one_at, 1),
             at_end=outcome(off.read, _path, 400, h.end_limit))
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(neg_limit=range(-1000, 0), huge_limit=range(502, 10**7),
                  neg_offset=range(-10**6, -1), str_offset=("5", "0", "12", " 3", "400"),
                  str_limit=("10", "200", "1", "500"), float_offset=(1.5, 0.0, 3.0, 7.25, 399.0),
                  float_limit=(100.0, 1.0, 500.0, 20.0, 2.5), one_at=range(0, 400),
                  wide_at=range(0, 400), end_limit=range(1, 501))


def served(got, what):
    """The value of a recorded call that must return a string, never raise."""
    if got["raised"] is not None:
        raise AssertionError(f"{what} raised {got['raised']['type']}; return 'Error: ...' "
                             "for bad offset/limit, never raise")
    return got["value"]


assert isinstance(rec["shown"], str) and rec["shown"].startswith("Error:"), (
    f"offset=-5 was served (a negative slice reads from the END): got "
    f"{str(rec['shown'])[:40]!r}")
kws = [{"limit": 0}, {"limit": h.neg_limit}, {"limit": 501}, {"limit": h.huge_limit},
       {"offset": h.str_offset}, {"limit": h.str_limit}, {"offset": h.float_offset},
       {"offset": True}, {"offset": None}, {"limit": None}, {"limit": h.float_limit},
       {"offset": h.neg_offset}]
assert rec["kws"] == [repr(kw) for kw in kws], f"the bad arguments checked were not {kws}"
for kw, got in zip(rec["kws"], rec["bad"], strict=True):
    value = served(got, f"read(path, **{kw})")
    assert isinstance(value, str) and value.startswith("Error:"), (
        f"read(path, **{kw}) was served; offset must be an int >= 0, limit an int 1..500")
w = h.wide_at
value = served(rec["limit500"], f"read(path, {w}, 500)")
assert isinstance(value, str) and value.startswith(f"[lines {w}-400 of 400]\nrow {w}"), (
    f"limit=500 is allowed: read(path, {w}, 500) must start [lines {w}-400 of 400], got "
    f"{str(value)[:40]!r}")
o = h.one_at
value = served(rec["limit1"], f"read(path, {o}, 1)")
assert value == f"[lines {o}-{o + 1} of 400]\nrow {o}", (
    f"limit=1 is allowed: read(path, {o}, 1) gave {value!r}")
value = served(rec["at_end"], f"read(path, 400, {h.end_limit})")
assert value == "[lines 400-400 of 400]\n", (
    f"an offset at the end gives an empty window, not an error: read(path, 400, {h.end_limit}) "
    f"gave {value!r}")
### END HIDDEN TESTS

# %% id="small_results_unchanged" kind="tests" points=2
import datetime
import json
import os
import tempfile

_base = tempfile.mkdtemp(prefix="lab08-t-")
_root = os.path.join(_base, "artifacts")
off = Offloader(_root)
_got = off.wrap("get_account", "plan: pro\nseats: 12")
assert _got == "plan: pro\nseats: 12", (
    f"small result: a 20-char result must pass through unchanged, got {_got!r}")
_got = off.wrap("t", "a" * 2000)
assert _got == "a" * 2000, (
    f"threshold: exactly 2000 chars (<= threshold) must pass unchanged, got {_got[:60]!r}...")
_payload = {"id": 7, "due": datetime.date(2026, 1, 2)}
_as_json = json.dumps(_payload, indent=2, default=str)
_wrapped = off.wrap("t", _payload)
assert _wrapped == _as_json, (
    f"non-str payload: a small dict becomes json.dumps(payload, indent=2, default=str) = "
    f"{_as_json!r}, got {_wrapped!r}")
assert os.listdir(_root) == [] and off.saved_chars == 0, (
    f"small results: nothing is written at or below the threshold, got files "
    f"{os.listdir(_root)} and saved_chars={off.saved_chars!r}")
_got = off.wrap("t", "b" * 2001)
assert _got != "b" * 2001 and len(os.listdir(_root)) == 1 and off.saved_chars == 2001, (
    f"threshold: 2001 chars (one line) must be offloaded: one file and saved_chars=2001, "
    f"got files {os.listdir(_root)} and saved_chars={off.saved_chars!r}")
off.wrap("t", "c" * 3000)
assert off.saved_chars == 5001, (
    f"saved_chars adds len(text) per offload: 2001 + 3000 = 5001, got {off.saved_chars!r}")
_low = Offloader(os.path.join(_base, "low40"), threshold=40)
_got = _low.wrap("t", "d" * 41)
assert _got != "d" * 41 and _low.saved_chars == 41, (
    f"threshold argument: with threshold=40, 41 chars must be offloaded, got {_got!r} and "
    f"saved_chars={_low.saved_chars!r}")
_wide = Offloader(os.path.join(_base, "wide"), threshold=10)
_wide.wrap("t", "é" * 50)
assert _wide.saved_chars == 50, (
    f"saved_chars adds len(text), the characters: 50 'é' are 50 characters (100 bytes in "
    f"UTF-8); got {_wide.saved_chars}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record

h = hidden_inputs(edge_char=("x", "#", "q", "-", "é"),
                  edge_width=(1, 3, 4, 7, 9, 15, 24, 49, 99), dict_id=range(1, 10_000),
                  dict_tag=("a", "vip", "eu-west", "beta"), dict_at=range(0, 10_000),
                  list_n=range(-500, 500), list_word=("two", "none", "null", "ok"),
                  big_char=("y", "z", "0", "."), big_len=range(2001, 2049), low=range(20, 1900),
                  wide_word=("日本語", "données", "ÆØÅ", "naïve", "中文字", "Ελληνικά"),
                  wide_reps=range(5, 40))
_fresh = os.path.join(_base, "fresh")
_off = Offloader(_fresh)
_shown = _off.wrap("get_account", "plan: pro\nseats: 12")
_edge = _off.wrap("t", (h.edge_char * h.edge_width + "\n") * (2000 // (h.edge_width + 1)))
_at = datetime.datetime(2025, 1, 1) + datetime.timedelta(hours=h.dict_at, minutes=h.dict_at % 60)
_small_dict = _off.wrap("t", {"id": h.dict_id, "tags": [h.dict_tag], "at": _at})
_small_list = _off.wrap("t", [h.list_n, h.list_word, None])
_files_small, _saved_small = os.listdir(_fresh), _off.saved_chars
_big = _off.wrap("t", h.big_char * h.big_len)
_saved_big = _off.saved_chars
_low = Offloader(os.path.join(_base, "low"), threshold=h.low)
_wide2 = Offloader(os.path.join(_base, "wide2"), threshold=5)
_wide2.wrap("t", h.wide_word * h.wide_reps)
rec_wide = _wide2.saved_chars
rec = record(wide=rec_wide, shown=_shown, edge=_edge, small_dict=_small_dict, small_list=_small_list,
             files_small=_files_small, saved_small=_saved_small, big=_big, saved_big=_saved_big,
             low51=_low.wrap("t", "z" * (h.low + 1)), low50=_low.wrap("t", "z" * h.low),
             low_saved=_low.saved_chars)
### JUDGE
import datetime
import json

from course.observe import hidden_inputs

h = hidden_inputs(edge_char=("x", "#", "q", "-", "é"),
                  edge_width=(1, 3, 4, 7, 9, 15, 24, 49, 99), dict_id=range(1, 10_000),
                  dict_tag=("a", "vip", "eu-west", "beta"), dict_at=range(0, 10_000),
                  list_n=range(-500, 500), list_word=("two", "none", "null", "ok"),
                  big_char=("y", "z", "0", "."), big_len=range(2001, 2049), low=range(20, 1900),
                  wide_word=("日本語", "données", "ÆØÅ", "naïve", "中文字", "Ελληνικά"),
                  wide_reps=range(5, 40))

assert rec["shown"] == "plan: pro\nseats: 12", (
    "a 20-char result was changed: results of <= threshold chars pass through unchanged")
edge = (h.edge_char * h.edge_width + "\n") * (2000 // (h.edge_width + 1))
assert rec["edge"] == edge, (
    f"a result of exactly threshold=2000 chars ({2000 // (h.edge_width + 1)} lines of "
    f"{h.edge_width} {h.edge_char!r} and a newline) must pass unchanged (<=, not <)")
at = datetime.datetime(2025, 1, 1) + datetime.timedelta(hours=h.dict_at, minutes=h.dict_at % 60)
want = json.dumps({"id": h.dict_id, "tags": [h.dict_tag], "at": str(at)}, indent=2)
assert rec["small_dict"] == want, (
    f"a small dict must come back as json.dumps(payload, indent=2, default=str) = {want!r}, "
    f"got {rec['small_dict']!r}")
want = json.dumps([h.list_n, h.list_word, None], indent=2)
assert rec["small_list"] == want, (
    f"a small list must come back as json.dumps(payload, indent=2) = {want!r}, "
    f"got {rec['small_list']!r}")
assert rec["files_small"] == [] and rec["saved_small"] == 0, (
    f"small results wrote files {rec['files_small']} / saved_chars={rec['saved_small']}; "
    "nothing is offloaded at or below the threshold")
big = h.big_len
assert rec["big"] != h.big_char * big and rec["saved_big"] == big, (
    f"{big} chars (over the default threshold of 2000) must be offloaded and counted in "
    f"saved_chars (got {rec['saved_big']})")
low = h.low
assert rec["low51"] != "z" * (low + 1) and rec["low50"] == "z" * low and (
        rec["low_saved"] == low + 1), (
    f"use the threshold argument, not a hard-coded 2000 (threshold={low}: {low + 1} chars "
    f"offloaded, {low} kept; saved_chars={rec['low_saved']!r})")
wide = h.wide_word * h.wide_reps
assert rec["wide"] == len(wide), (
    f"saved_chars adds len(text), the characters: {h.wide_word!r} * {h.wide_reps} is "
    f"{len(wide)} characters, {len(wide.encode())} bytes in UTF-8; got {rec['wide']}")
### END HIDDEN TESTS

# %% id="pointer_not_thin" kind="tests" points=2
import json
import os
import re
import tempfile

_base = tempfile.mkdtemp(prefix="lab08-t-")
_root = os.path.join(_base, "artifacts")
off = Offloader(_root)
_rows = [f"{i:04d} | order {i} | shipped" for i in range(1, 301)]
_text = "\n".join(_rows)
_ptr = off.wrap("query_orders", _text)
assert isinstance(_ptr, str), f"wrap must return a str, got {_ptr!r}"
assert str(len(_text)) in _ptr or f"{len(_text):,}" in _ptr, (
    f"pointer content: it must give the character count {len(_text)}, got {_ptr!r}")
for _want in _rows[:8] + _rows[-4:] + ["read_artifact", "query_orders", "300"]:
    assert _want in _ptr, (
        f"pointer content: it needs the tool name, 300 lines, {len(_text)} chars, the first 8 "
        f"and last 4 lines and read_artifact; {_want!r} is missing from {_ptr!r}")
for _middle in (_rows[8], _rows[150], _rows[-5]):
    assert _middle not in _ptr, (
        f"pointer content: {_middle!r} is a middle line; only 8 + 4 lines are shown: {_ptr!r}")
_names = os.listdir(_root)
assert len(_names) == 1 and re.fullmatch(r"query_orders-.{8}\.txt", _names[0]), (
    f"artifact file: one file query_orders-<8 chars>.txt directly inside root, got {_names}")
_p = os.path.join(_root, _names[0])
assert _ptr.count(_p) >= 2, (
    f"pointer path: it must name os.path.join(root, name) = {_p!r} twice (where, and in the "
    f"read_artifact hint), got {_ptr!r}")
with open(_p, encoding="utf-8") as _f:
    _saved = _f.read()
assert _saved == _text, f"artifact file: it must hold the payload exactly, got {_saved[:80]!r}"
_got = off.read(_p, 0, 1)
assert _got == f"[lines 0-1 of 300]\n{_rows[0]}", (
    f"pointer path: read(path named in the pointer, 0, 1) must serve line 0, got {_got!r}")
_base2 = tempfile.mkdtemp(prefix="lab08-t-")
_off2 = Offloader(_base2)
_ptr_a, _ptr_b = _off2.wrap("mcp/search", "a\n" * 1500), _off2.wrap("mcp/search", "b\n" * 1500)
_names = sorted(os.listdir(_base2))
assert len(_names) == 2 and all(re.fullmatch(r"mcp_search-.{8}\.txt", n) for n in _names), (
    "file name: '/' in tool_name becomes '_' and two payloads get two files directly "
    f"inside root (mcp_search-<8 chars>.txt), got {_names}")
assert "mcp/search" in _ptr_a, f"pointer content: the tool name as given, got {_ptr_a!r}"
_base3 = tempfile.mkdtemp(prefix="lab08-t-")
Offloader(_base3).wrap("mcp\\search", "c\n" * 1500)
_names3 = os.listdir(_base3)
assert len(_names3) == 1 and re.fullmatch(r"mcp_search-.{8}\.txt", _names3[0]), (
    "file name: '\\' in tool_name becomes '_' as '/' does, so the file lands directly inside "
    f"root (mcp_search-<8 chars>.txt), got {_names3}")
_ended = "\n".join(["alpha" * 20] * 30) + "\n"   # 3,030 characters, over the threshold
_eroot = os.path.join(_base, "ended")
_eptr = Offloader(_eroot).wrap("tail_newline", _ended)
_epath = os.path.join(_eroot, os.listdir(_eroot)[0])
_eplain = _eptr.replace(_epath, "")
assert re.search(r"\b30\b", _eplain) and not re.search(r"\b31\b", _eplain), (
    "line count: a text of 30 lines that ends with a newline has len(text.splitlines()) = "
    f"30 lines, not 31; the pointer said {_eplain[:120]!r}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, outcome, record

h = hidden_inputs(n3=range(130, 400), step3=(3, 7, 11, 13), mod3=(5, 9, 17),
                  tool3=("inv\\../up", "mcp/fs\\read", "..\\../x", "a\\b/c", "srv/..\\..\\k"),
                  ended_n=range(20, 100), ended_word=("beta", "gamma", "delta", "omega"),
                  big_rows=range(40, 150), big_note=range(10, 60), read_at=range(0, 129))
_base3 = tempfile.mkdtemp(prefix="lab08-t-")
_off3 = Offloader(os.path.join(_base3, "art"))
_rows3 = [f"sku-{i * h.step3:05d};qty={i % h.mod3}" for i in range(h.n3)]
_ptr3 = _off3.wrap(h.tool3, "\n".join(_rows3))
_listed3 = os.listdir(os.path.join(_base3, "art"))
_above3 = sorted(os.listdir(_base3))
_saved3 = None
if len(_listed3) == 1:
    with open(os.path.join(_base3, "art", _listed3[0]), encoding="utf-8") as _f:
        _saved3 = _f.read()
_listed = os.listdir(_root)
_path = os.path.join(_root, _listed[0]) if _listed else None
_saved = None
if _path is not None:
    with open(_path, encoding="utf-8") as _f:
        _saved = _f.read()
_big = {"rows": [{"id": i, "note": "n" * h.big_note} for i in range(h.big_rows)]}
_ended2 = "\n".join([h.ended_word * 30] * h.ended_n) + "\n"
_eroot2 = os.path.join(_base, "ended2")
_eptr2 = Offloader(_eroot2).wrap("ends_newline", _ended2)
_epath2 = os.path.join(_eroot2, os.listdir(_eroot2)[0])
_base4 = tempfile.mkdtemp(prefix="lab08-t-")
_off4 = Offloader(_base4)
for _word in (h.ended_word, h.ended_word.upper()):
    _off4.wrap("same_tool", f"{_word}\n" * 1500)
rec = record(ended=_eptr2.replace(_epath2, ""), ptr=_ptr, files=_listed, path=_path, saved=_saved,
             ptr2=off.wrap("export", _big), ptr3=_ptr3, listed3=_listed3, above3=_above3,
             saved3=_saved3, root3=os.path.join(_base3, "art"),
             first=outcome(off.read, _path, 0, 1) if _path else None,
             some=outcome(_off3.read, os.path.join(_base3, "art", _listed3[0]), h.read_at, 1)
             if len(_listed3) == 1 else None, two=sorted(os.listdir(_base4)))
### JUDGE
import json

from course.observe import hidden_inputs

h = hidden_inputs(n3=range(130, 400), step3=(3, 7, 11, 13), mod3=(5, 9, 17),
                  tool3=("inv\\../up", "mcp/fs\\read", "..\\../x", "a\\b/c", "srv/..\\..\\k"),
                  ended_n=range(20, 100), ended_word=("beta", "gamma", "delta", "omega"),
                  big_rows=range(40, 150), big_note=range(10, 60), read_at=range(0, 129))

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
big = {"rows": [{"id": i, "note": "n" * h.big_note} for i in range(h.big_rows)]}
lines2 = json.dumps(big, indent=2).splitlines()
ptr2 = rec["ptr2"]
assert isinstance(ptr2, str) and lines2[1] in ptr2 and lines2[-1] in ptr2, (
    "a big dict must be offloaded as its json.dumps(indent=2) text, head and tail shown")
n3 = h.n3
rows3 = [f"sku-{i * h.step3:05d};qty={i % h.mod3}" for i in range(n3)]
text3 = "\n".join(rows3)
assert rec["above3"] == ["art"] and len(rec["listed3"]) == 1, (
    f"tool_name {h.tool3!r}: '/' and '\\' become '_', so the one file lands directly inside "
    f"root; got {rec['listed3']} in root and {rec['above3']} beside it")
name3 = rec["listed3"][0]
safe3 = h.tool3.replace("/", "_").replace("\\", "_") + "-"
assert name3.startswith(safe3) and name3.endswith(".txt") and len(name3) == len(safe3) + 12, (
    f"file name must be {safe3}<8 chars>.txt, got {name3!r}")
assert rec["saved3"] == text3, "the artifact file must hold the payload exactly"
ptr3 = rec["ptr3"]
path3 = rec["root3"] + "/" + name3
assert isinstance(ptr3, str) and ptr3.count(path3) >= 2 and str(n3) in ptr3 and (
        str(len(text3)) in ptr3 or f"{len(text3):,}" in ptr3), (
    f"the pointer must give {n3} lines, {len(text3)} chars and the path twice: {ptr3!r}")
assert [ptr3.count(r) for r in rows3[:8] + rows3[-4:]] == [1] * 12, (
    f"head and tail lines of a {n3}-line payload must each appear once")
assert all(r not in ptr3 for r in rows3[8:-4]), f"a middle line of {n3} appears in the pointer"
import re as _re

e = h.ended_n
assert _re.search(rf"\b{e}\b", rec["ended"]) and not _re.search(rf"\b{e + 1}\b", rec["ended"]), (
    f"line count: a text of {e} lines that ends with a newline is len(text.splitlines()) = {e} "
    "lines; the pointer gives another count")
k = h.read_at
for got, want in ((rec["first"], f"[lines 0-1 of 300]\n{rows[0]}"),
                  (rec["some"], f"[lines {k}-{k + 1} of {n3}]\n{rows3[k]}")):
    assert got is not None and got["raised"] is None and got["value"] == want, (
        f"read(the path the pointer names, offset, 1) serves that line: want {want!r}, "
        f"got {got!r}"[:400])
assert len(rec["two"]) == 2, (
    f"two payloads under one tool name get two files (the name carries the payload's hash), "
    f"got {rec['two']}")
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
for _n in (12, 13):
    _rows_n = [f"entry {_n}.{i:02d} " + "~" * 200 for i in range(1, _n + 1)]
    _ptr_n = Offloader(os.path.join(_base, f"v{_n}")).wrap("read_log", "\n".join(_rows_n))
    _counts = [_ptr_n.count(r) for r in _rows_n]
    _want = [1] * 8 + [0] * 4 if _n == 12 else [1] * 8 + [0] + [1] * 4
    assert _counts == _want, (
        f"tail rule: with {_n} lines each line must appear {_want} times (8-line head, a "
        f"4-line tail only when there are more than 12), got {_counts}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record

h = hidden_inputs(many=range(14, 80), fill=("-", "=", "~", "*", "#", "."),
                  width=range(200, 300), over=range(2100, 2400))
_ptrs = {}
for _n in (12, 13, h.many):
    _rows_n = [f"L{_n}-{i:02d} " + h.fill * h.width for i in range(1, _n + 1)]
    _ptrs[_n] = Offloader(os.path.join(_base, f"n{_n}")).wrap("read_log", "\n".join(_rows_n))
_two = "\n".join([h.fill * (h.over - 60), "tail " + h.fill * 54])
rec = record(shown=_ptr, ptrs=_ptrs, two=Offloader(os.path.join(_base, "two")).wrap("two", _two))
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(many=range(14, 80), fill=("-", "=", "~", "*", "#", "."),
                  width=range(200, 300), over=range(2100, 2400))

rows = [f"line {i:02d} " + "=" * 300 for i in range(1, 11)]
ptr = rec["shown"]
assert isinstance(ptr, str), f"wrap must return a str, got {ptr!r}"[:200]
twice = [r[:7] for r in rows if ptr.count(r) > 1]
assert not twice, f"10-line result: {twice} appear twice; no tail unless there are > 12"
for n in (12, 13, h.many):
    rows = [f"L{n}-{i:02d} " + h.fill * h.width for i in range(1, n + 1)]
    ptr = rec["ptrs"][str(n)]
    assert isinstance(ptr, str), f"wrap must return a str, got {ptr!r}"[:200]
    counts = [ptr.count(r) for r in rows]
    assert max(counts) == 1, f"{n} lines: some line appears twice in the pointer"
    assert counts[:8] == [1] * 8, f"{n} lines: the first 8 lines must all be shown"
    if n > 12:
        assert counts[-4:] == [1] * 4, f"{n} lines (> 12): the last 4 lines must be shown"
        assert counts[8:-4] == [0] * (n - 12), (
            f"{n} lines (> 12): a pointer, whatever its length, shows the 8-line head and "
            "the 4-line tail and no line between")
    else:
        assert sum(counts) == 8, f"{n} lines (<= 12): show the 8-line head and no tail"
two = "\n".join([h.fill * (h.over - 60), "tail " + h.fill * 54])
assert isinstance(rec["two"], str) and rec["two"] != two and "read_artifact" in rec["two"], (
    f"a 2-line text of {len(two)} characters is over the threshold: it is offloaded though its "
    "pointer comes out longer (the choice depends on len(text) alone)")
### END HIDDEN TESTS

# %% [markdown] kind="readonly" id="explain_prompt"
# ## Explain (3 points, graded by hand)
#
# A log tool returns 120,000 characters (1,500 lines) at turn 4 of a 25-turn run, and your
# offloader turns it into a pointer of 1,400 characters. At this course's rate of 4
# characters per token and \$5 per million input tokens, how much input does offloading
# keep out of the run's requests, and what is it worth? Then: the artifact root is
# `/srv/agent/art`, and a planted page asks for `/srv/agent/art-old/keys.txt`. Which check
# admits it, which refuses it, and why? Four to six sentences.

# %% [markdown] id="explain_offload" kind="manual" points=3
# ### BEGIN SOLUTION
# **Model answer.** The result enters at turn 4, so it is resent with each of the 21
# requests from turn 5 to 25. Inline that is 21 × 120,000 = 2,520,000 characters, about
# 630,000 tokens; as a pointer it is 21 × 1,400 = 29,400 characters, about 7,350 tokens.
# Offloading keeps about 622,650 tokens out, roughly \$3.11 at \$5 per million, because it
# shrinks what each turn appends rather than trimming it later. The string check
# `abspath(path).startswith(abspath(root))` admits `/srv/agent/art-old/keys.txt` because the
# string `/srv/agent/art-old` starts with the string `/srv/agent/art`; `commonpath` of the
# two realpaths is `/srv/agent`, not the root, so the component check refuses it. The
# attacker chose the path through text the model read, so only the check decides.
#
# **Mark scheme (3 points).**
# * 1 point: the count of resends (21, or 22 if they count turn 4's own request with a
#   stated reason) and the token difference, about 620,000 tokens, about \$3.
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
