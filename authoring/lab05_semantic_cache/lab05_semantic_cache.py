# %% [markdown]
# # Lab 5 — Semantic cache
#
# **Points:** 15 autograded + 3 written = 18.
#
# **You implement**
#
# ```python
# SemanticCache(threshold=0.98, ttl=3600, *, embed, clock=time.time)
#     .get(q, namespace="default") -> str | None   # the stored answer, or None on a miss
#     .put(q, a, namespace="default") -> None      # store answer a for question q
#     .hits, .misses                                # lookup counters
#     .hit_rate                                     # hits / lookups, 0.0 before any lookup
# cacheable(q, a) -> bool                           # may this answer be stored at all?
# pick_threshold(rows) -> float                     # the threshold a sweep justifies
# ```
#
# * **In:** a question, a tenant id (the `namespace`), and two injected dependencies:
#   `embed(text)` returns a vector and `clock()` returns the time in seconds.
# * **Out:** the stored answer to the closest question, straight away, when one close
#   enough in meaning was answered before for the same tenant and has not expired;
#   otherwise `None`, and the agent runs as usual.
#
# Everything runs offline. `embed` looks vectors up in a file recorded once from a real
# embedding model (named below), and time is a fake clock you advance by hand.

# %%
import matplotlib.pyplot as plt
import numpy as np

from course.clock import FakeClock
from course.worlds import semantic_cache as sc

rec = sc.recording()
print(f"embedding model: {rec.model} (package {rec.package} {rec.package_version}), "
      f"{rec.dim} numbers per text, {len(rec.vectors)} texts recorded")
print(f"labelled pairs: {len(sc.PARAPHRASES)} paraphrases, {len(sc.NEAR_MISSES)} near misses")

# %% [markdown]
# ## Why it exists
#
# Prompt caching (a later notebook) makes a repeated *prefix* cheaper. It does nothing when two users
# ask the same thing in different words: "how do I rotate an API key" and "what's the
# process for changing my API key" differ from the first token, so there is no shared
# prefix to reuse.
#
# A semantic cache works on meaning instead. An **embedding** model turns a text into a
# list of numbers (here 384) placed so that texts with similar meaning point in similar
# directions. "Similar direction" is measured by **cosine similarity**:
#
# $$\cos(a, b) = \frac{a \cdot b}{|a|\,|b|}$$
#
# 1.0 for the same direction, near 0 for unrelated texts. Embed the new question, find the
# stored question with the highest cosine, and if it clears a **threshold**, return the
# stored answer and skip the model entirely. A hit costs one embedding lookup instead of
# a whole agent run. It is the only guard in this course that removes a model call rather
# than making one cheaper.
#
# When both vectors have length 1, the denominator is 1 and the cosine is just the dot
# product. That is what makes a lookup one matrix product over the whole table. The
# check below uses two vectors you can do by hand: [3, 4] and [4, 3] both have length 5.

# %%
a, b = np.array([3.0, 4.0]), np.array([4.0, 3.0])
print("raw dot product:", a @ b, "  cosine:", sc.cosine(a, b), "= 24/25")
ua, ub = a / 5, b / 5
print("after scaling both to length 1, the dot product is", round(float(ua @ ub), 12))

# %% [markdown]
# ## The bug it prevents, run live
#
# An embedding keeps the gist of a sentence and throws away details, and the details are
# what change the answer. The most dangerous pairs read almost the same and mean different
# things. Three such pairs are often quoted with cosines measured on a different model
# (voyage-3-large). Here they are beside what *our* model gives for the
# same strings:

# %%
print(f"{'pair':<52} {sc.CHAPTER_MODEL:>15}  {'all-MiniLM-L6-v2':>17}")
for q1, q2, their_cos in sc.CHAPTER_TABLE:
    ours = sc.cosine(sc.embed(q1), sc.embed(q2))
    print(f"{q1 + '  vs  ' + q2:<52} {their_cos:>15.2f}  {ours:>17.3f}")

# %% [markdown]
# The numbers disagree completely. On voyage-3-large "charge for March" vs "charge for May"
# is the worst pair, at 0.97. On all-MiniLM-L6-v2 the same pair scores 0.673 and is easy to
# reject. A similarity score belongs to a model, so a threshold does too. We cannot call
# voyage-3-large offline, so everything below is measured on the model in the data file.
#
# Here is a first cache, written the obvious way: one shared list, a 0.95 threshold, a
# plain dot product, and nothing about time or tenants. Store the first question of each
# of our 25 near misses, then ask the second one:

# %%
class ListCache:
    """Deliberately naive: no tenants, no expiry, no normalising, 0.95 threshold."""

    def __init__(self, embed):
        self.embed = embed
        self.entries = []                      # (question, vector, answer)

    def remember(self, question, answer):
        self.entries.append((question, self.embed(question), answer))

    def recall(self, question):
        probe = self.embed(question)
        scored = sorted(((float(np.dot(probe, vec)), ans) for _, vec, ans in self.entries),
                        reverse=True)
        if scored and scored[0][0] >= 0.95:
            return scored[0][1]
        return None


served = []
for stored_q, asked_q in sc.NEAR_MISSES:
    naive = ListCache(sc.embed)
    naive.remember(stored_q, f"<the answer to: {stored_q}>")
    got = naive.recall(asked_q)
    if got is not None:
        served.append((asked_q, got))
print(f"at 0.95, {len(served)} of {len(sc.NEAR_MISSES)} near misses got another question's answer:")
for asked_q, got in served:
    print(f"  asked {asked_q!r:44} -> served {got}")

# %% [markdown]
# That is a **false hit**: a confident, wrong answer, with no error raised and no model
# call in your logs. Nothing to grep for. A miss costs one wasted embedding lookup, so the
# two errors are not symmetric: the threshold starts high and comes down only when a
# measurement says it may.
#
# Three more ways the naive cache fails, each in a line or two:

# %%
naive = ListCache(sc.embed)
question = "how do I rotate an API key"
naive.remember(question, sc.TENANT_ANSWERS["acme"])
print("1. tenant leak:   globex asks and is served ->", naive.recall(question))

clock = FakeClock()
born = clock()
clock.advance(3 * 3600)
print(f"2. no expiry:     {clock() - born:.0f} s after storing, still served ->",
      naive.recall(question) is not None)

raw = ListCache(sc.embed_unnormalised)
raw.remember("charge for March", "<March invoice: $120>")
probe, stored = sc.embed_unnormalised("charge for May"), sc.embed_unnormalised("charge for March")
print(f"3. unnormalised:  a provider returning length-{np.linalg.norm(probe):.1f} vectors "
      f"makes the 'similarity' {probe @ stored:.1f} (the cosine is "
      f"{sc.cosine(probe, stored):.3f}) -> served {raw.recall('charge for May')!r}")

# %% [markdown]
# 1. **Tenant leak.** A tenant is one customer whose data no other customer may see. A
#    cache keyed only on the question serves tenant A's answer to tenant B. The fix is a
#    *namespace*: the tenant id becomes part of what is looked up, so entries of different
#    tenants can never match.
# 2. **No expiry.** Every stored answer is a promise to repeat it word for word. A
#    **TTL** (time to live) bounds how stale that promise can get.
# 3. **Unnormalised vectors.** The dot-product shortcut is only a cosine when both vectors
#    have length 1. `sc.embed_unnormalised` returns the same model's vectors *before* its
#    last normalising layer (lengths 4.8 to 7.9): same directions, same cosines, but every
#    raw dot product lands far above 1 and every stored row "matches". Enforce length 1
#    inside the cache; do not trust whatever `embed` happens to return.
#
# ## Measuring the threshold
#
# The recipe: write labelled pairs by hand (paraphrases that *should* hit, and near
# misses with a substituted date, amount or name that must *not*), then sweep the
# threshold and look at both rates at once:
#
# * **hit rate**: the share of paraphrases served from the cache;
# * **false-hit rate**: the share of near misses served a wrong answer.
#
# The sweep divides by the number of pairs, never by a typed-in 25: add a 26th pair and a
# literal denominator reports rates above 1.0 without complaint.

# %%
rows = sc.sweep(sc.PARAPHRASES, sc.NEAR_MISSES, sc.THRESHOLDS, embed=sc.embed)
print(sc.sweep_table(rows))

# %%
fig = sc.plot_sweep(rows, default=0.98)
plt.show()

# %%
para_cos = sc.pair_cosines(sc.PARAPHRASES)
near_cos = sc.pair_cosines(sc.NEAR_MISSES)
worst = max(range(len(near_cos)), key=near_cos.__getitem__)
print(f"best paraphrase cosine:  {max(para_cos):.3f}")
print(f"worst near-miss cosine:  {near_cos[worst]:.3f}  {sc.NEAR_MISSES[worst]}  "
      f"({sc.NEAR_MISS_KINDS[worst]} swapped)")
above = sum(c > max(para_cos) for c in near_cos)
print(f"near misses scoring above the best paraphrase: {above} of {len(near_cos)}")

# %% [markdown]
# Read the table from the bottom up. The rule: **take the lowest threshold
# with zero false hits, then go one notch higher**, because your 25 near misses are a
# sample and the next one may land a little higher. The notch needs somewhere to go, so
# the grid has to run past the first zero. A grid that stops at 0.995, as is common, ends
# on this data exactly at the first zero: the rule would be unfollowable. Our grid adds
# 0.998 and 0.999.
#
# And look at what the rule costs here. On all-MiniLM-L6-v2, near misses score *higher*
# than genuine paraphrases: "Friday at 9am" vs "Friday at 9pm" is closer than any
# rewording in the set. No threshold catches a single paraphrase without serving a wrong
# answer. So on this model, a safe semantic cache is a near-exact-repeat cache. That is a
# finding, not a failure: the sweep tells you what a model can do before it serves a
# customer the wrong invoice.
#
# The usual 0.98 default (the default in the signature you implement) was chosen for
# voyage-3-large, whose worst near miss sat at 0.97. On our data 0.98 still serves one
# near miss. Keep the default, but pass the threshold your sweep picked.
#
# ## Tier 1 — pseudocode
#
# ```text
# on request(q, tenant):
#     v = unit(embed(q))                       # enforce length 1, never assume it
#     rows = live rows of namespace[tenant]    # drop rows older than TTL
#     scores = rows.vectors @ v                # every cosine at once
#     if rows and max(scores) >= THRESHOLD:    hits += 1; return rows.answer[argmax]
#     misses += 1
#     a = agent(q)
#     if cacheable(q, a): namespace[tenant].add(v, a, now)
#     return a
# ```
#
# **What a framework changes.** In LangGraph the lookup becomes a node in front of the
# agent with a conditional edge to `END` on a hit. The graph changes where the check
# sits; the threshold, namespace, TTL and `cacheable` decisions are still yours.
#
# ## Implement `SemanticCache`
#
# The common textbook version of this cache differs in two ways, both corrected here.
#
# * It reads `time.time()` inside `get` and `put`, so the only way to test expiry is to
#   wait an hour. Here the clock is injected: `clock=FakeClock()` in every test.
# * It scans the table in a Python `for` loop (and drops expired rows with a list
#   comprehension) on every lookup. That is legible, and its cost grows with every row you
#   store. Count the Python lines one lookup runs in the naive cache above:

# %%
naive = ListCache(sc.embed)
texts = sc.all_texts()
for size in (100, 1000):
    while len(naive.entries) < size:
        naive.remember(texts[len(naive.entries) % len(texts)], "<answer>")
    _, lines = sc.python_lines_run(naive.recall, texts[0])
    print(f"one lookup over {size:>4} rows ran {lines:>5} lines of Python")

# %% [markdown]
# Keep, per namespace, a matrix of unit vectors (one row per stored question) with the
# answers and store times beside it. A lookup is then one matrix–vector product and an
# `argmax`, whatever the number of rows; expiry is one comparison on the array of store
# times. Over 100,000 rows the
# matrix product is orders of magnitude faster than the loop.
# Growing a numpy array one row at a time copies it every time, so keep spare room
# (double it when full); `float32` halves the bytes each lookup reads.

# %% id="semantic_cache" kind="solution"
import time

import numpy as np


class SemanticCache:
    """Answers repeat questions from memory, per tenant, for at most ``ttl`` seconds.

    threshold -- the smallest cosine similarity that counts as the same question
    ttl       -- seconds an entry stays valid after it was stored
    embed     -- embed(text) returns a vector (any length; normalise it yourself)
    clock     -- clock() returns the current time in seconds (the tests pass a FakeClock)

    A lookup only ever searches the asking tenant's own entries, ignores expired entries,
    and compares unit vectors in one vectorised product. An entry is live while its age,
    clock() now minus clock() at put, is strictly below ttl: at exactly ttl it has expired.
    A hit needs a cosine >= threshold. ``put`` never replaces: storing a question again adds
    another row, and on equal scores the earliest stored row wins. ``hits`` and ``misses``
    count lookups; ``put`` counts as neither.
    """

    def __init__(self, threshold=0.98, ttl=3600, *, embed, clock=time.time):
        ### BEGIN SOLUTION
        self.threshold = threshold
        self.ttl = ttl
        self.embed = embed
        self.clock = clock
        self.hits = 0
        self.misses = 0
        self._shelves = {}      # namespace -> {"vecs", "born", "answers", "n"}
        ### END SOLUTION

    def _unit_vector(self, q):
        """embed(q) as a float array scaled to length 1 (a zero vector stays zero)."""
        ### BEGIN SOLUTION
        v = np.asarray(self.embed(q), dtype=np.float64).reshape(-1)
        length = float(np.sqrt(v @ v))
        return v / length if length > 0 else v
        ### END SOLUTION

    def get(self, q, namespace="default"):
        """The stored answer for the closest live question in ``namespace``, or None."""
        ### BEGIN SOLUTION
        found = None
        shelf = self._shelves.get(namespace)
        if shelf is not None and shelf["n"] > 0:
            n = shelf["n"]
            now = self.clock()
            fresh = now - shelf["born"][:n] < self.ttl
            if not fresh.all():                       # expired rows go, for good
                keep = np.flatnonzero(fresh)
                shelf["vecs"][:keep.size] = shelf["vecs"][keep]
                shelf["born"][:keep.size] = shelf["born"][keep]
                shelf["answers"] = [shelf["answers"][i] for i in keep]
                shelf["n"] = n = int(keep.size)
            if n > 0:
                probe = self._unit_vector(q).astype(np.float32)
                scores = shelf["vecs"][:n] @ probe          # every cosine at once
                best = int(np.argmax(scores))
                if scores[best] >= self.threshold:
                    found = shelf["answers"][best]
        if found is None:
            self.misses += 1
        else:
            self.hits += 1
        return found
        ### END SOLUTION

    def put(self, q, a, namespace="default"):
        """Store answer ``a`` for question ``q`` under ``namespace``, stamped with clock()."""
        ### BEGIN SOLUTION
        v = self._unit_vector(q)
        shelf = self._shelves.setdefault(namespace, {"answers": [], "n": 0})
        n = shelf["n"]
        if n == 0 or n == len(shelf["born"]):        # first row, or full: double the room
            room = max(16, 2 * n)
            vecs = np.empty((room, v.size), dtype=np.float32)   # half the bytes of float64
            born = np.empty(room)
            if n:
                vecs[:n], born[:n] = shelf["vecs"][:n], shelf["born"][:n]
            shelf["vecs"], shelf["born"] = vecs, born
        shelf["vecs"][n] = v
        shelf["born"][n] = self.clock()
        shelf["answers"].append(a)
        shelf["n"] = n + 1
        ### END SOLUTION

    @property
    def hit_rate(self):
        """hits / (hits + misses); 0.0 before the first lookup."""
        ### BEGIN SOLUTION
        lookups = self.hits + self.misses
        return self.hits / lookups if lookups else 0.0
        ### END SOLUTION

# %% [markdown]
# ## Implement `cacheable`
#
# Everything the cache stores is an answer you promise to repeat, word for word, to
# everyone in the tenant for the next TTL seconds. So some answers must never go in.
# Three kinds must never go in; implement these rules:
#
# * **user-specific**: the question says *my*, *mine*, *our* or *ours* ("what is my
#   balance"). This is crude on purpose: it also refuses the generic "changing my API key".
#   A refused store costs one miss later; a wrong store serves one customer's answer to
#   the next.
# * **time-sensitive**: the question asks about *now*, *today*, *tonight*, *tomorrow*,
#   *yesterday*, *currently*, *current*, *latest*, *right now* or *at the moment*.
# * **identifiers**: the question or the answer contains an order, invoice, ticket or
#   account number: a run of 4 or more digits ("order 48213", "INV-20931", "#5521").
#
# Words match as **whole words, in any case**: "My" counts as *my*, but "your" does not
# contain *our* and "known" does not contain *now*.

# %% id="cacheable" kind="solution"
import re


def cacheable(q, a):
    """True if answer ``a`` to question ``q`` may be stored and repeated to others.

    False for user-specific questions (my/mine/our/ours), time-sensitive questions
    (now, today, tonight, tomorrow, yesterday, currently, current, latest, right now,
    at the moment), and when the question or answer contains an identifier (4+ digits).
    Words match whole words in any case ("your" is not "our").
    """
    ### BEGIN SOLUTION
    personal = r"\b(my|mine|our|ours)\b"
    volatile = (r"\b(now|today|tonight|tomorrow|yesterday|currently|current|latest"
                r"|at the moment)\b")
    ident = r"\d{4,}"
    question = q.lower()
    if re.search(personal, question) or re.search(volatile, question):
        return False
    return not (re.search(ident, q) or re.search(ident, a))
    ### END SOLUTION

# %% [markdown]
# ## Implement `pick_threshold`
#
# `rows` is a sweep like the one above: objects with `.threshold`, `.hits`, `.false_hits`,
# `.hit_rate` and `.false_hit_rate`, in any order. Return the threshold one notch above the
# lowest threshold with zero false hits. If no threshold reaches zero false hits, or the
# first zero is the top of the grid, there is nothing safe to return: raise `ValueError`
# saying the grid must be extended.

# %% id="pick_threshold" kind="solution"
def pick_threshold(rows):
    """One notch above the lowest threshold in ``rows`` whose false_hits is 0.

    Raises ValueError when no row has zero false hits, or when that row is the highest
    threshold in the sweep (there is no notch above it).
    """
    ### BEGIN SOLUTION
    ordered = sorted(rows, key=lambda r: r.threshold)
    for i, row in enumerate(ordered):
        if row.false_hits == 0:
            if i + 1 == len(ordered):
                raise ValueError(f"the first zero-false-hit threshold {row.threshold} is the "
                                 "top of the grid; extend the sweep past it")
            return ordered[i + 1].threshold
    raise ValueError("no threshold in the sweep has zero false hits; extend the grid upward")
    ### END SOLUTION

# %% [markdown]
# ## Self-check
#
# A quick signal, **not** the grade. Press **Validate** too: each graded cell has a visible
# check for every rule its function's text states, boundaries included. Hidden tests in
# the same cells re-check each rule with other inputs (other tenants and clocks, more
# questions for `cacheable`, other sweeps, a larger table, other vector lengths).

# %%
chosen = pick_threshold(rows)
print("threshold picked from the sweep:", chosen)
fig = sc.plot_sweep(rows, chosen=chosen, default=0.98)
plt.show()

clock = FakeClock()
cache = SemanticCache(threshold=chosen, ttl=3600, embed=sc.embed, clock=clock)
cache.put("What is your refund policy?", "Refunds within 30 days of purchase.", namespace="acme")
print("same tenant, same words:", cache.get("What is your refund policy?", namespace="acme"))
print("other tenant:           ", cache.get("What is your refund policy?", namespace="globex"))
clock.advance(3601)
print("after the TTL:          ", cache.get("What is your refund policy?", namespace="acme"))
print(f"hits={cache.hits} misses={cache.misses} hit_rate={cache.hit_rate:.2f}")
print("cacheable('what is my balance', ...):", cacheable("what is my balance", "$12.40"))

big = SemanticCache(threshold=chosen, embed=sc.embed, clock=FakeClock())
texts = sc.all_texts()
for i in range(1000):
    big.put(texts[i % len(texts)], f"answer {i}")
big.get(texts[0])
_, lines = sc.python_lines_run(big.get, texts[0])
print(f"lines of your Python run by one get() over 1000 rows: {lines} (a loop would run 1000+)")

# %% [markdown]
# ## Putting it together: a hit removes the model call
#
# The cache sits in front of the agent. Below, a stream of requests from two tenants goes
# through `answer`, which asks the cache first and the (fake) model only on a miss, and
# stores what the model said only if `cacheable` allows it. Count the model calls.

# %%
from course.fakes import FakeAPI, Scripted  # noqa: E402
from course.wire import message, text  # noqa: E402


def model_reply(body):
    asked = body["messages"][-1]["content"]
    return message([text(f"<model's answer to: {asked}>")])


api = FakeAPI(Scripted(model_reply))
client = api.client()
clock = FakeClock()
front = SemanticCache(threshold=chosen, ttl=3600, embed=sc.embed, clock=clock)


def answer(q, tenant):
    stored = front.get(q, namespace=tenant)
    if stored is not None:
        return stored, "cache"
    reply = client.messages.create(model="claude-opus-5", max_tokens=256,
                                   messages=[{"role": "user", "content": q}])
    said = "".join(b.text for b in reply.content if b.type == "text")
    if cacheable(q, said):
        front.put(q, said, namespace=tenant)
    return said, "model"


traffic = [("acme", "What are the API rate limits?"), ("acme", "what are the api rate limits?"),
           ("globex", "What are the API rate limits?"), ("acme", "Refund $40 to my card"),
           ("acme", "Refund $400 to my card"), ("acme", "Cancel the meeting on Monday"),
           ("acme", "Cancel the meeting on Tuesday"), ("acme", "What are the API rate limits?")]
for tenant, q in traffic:
    _, source = answer(q, tenant)
    print(f"{tenant:<7} {q:<36} <- {source}")
print(f"{len(traffic)} requests, {len(api.requests)} model calls, "
      f"cache hit rate {front.hit_rate:.2f}")

# %% [markdown]
# ## Graded tests
#
# One cell per property. Each builds its own cache on a fake clock, so it depends only on
# the names in the API block at the top.

# %% id="tenant_isolation" kind="tests" points=2
from course.clock import FakeClock
from course.worlds import semantic_cache as sc

cache = SemanticCache(embed=sc.embed, clock=FakeClock())
q = "how do I rotate an API key"
cache.put(q, sc.TENANT_ANSWERS["acme"], namespace="acme")
got = cache.get(q, namespace="globex")
assert got is None, (
    f"globex asked acme's question and was served acme's answer {got!r}: a lookup must "
    "search only the asking tenant's namespace")
own = cache.get(q, namespace="acme")
assert own == sc.TENANT_ANSWERS["acme"], (
    f"namespace lookup: acme asked its own stored question and got {own!r}; a lookup in the "
    "tenant's own namespace must still hit")
plain = SemanticCache(embed=sc.embed, clock=FakeClock())
plain.put("How do I restore a deleted file?", "Open Trash and choose Restore.")
got_default = plain.get("How do I restore a deleted file?")
assert got_default == "Open Trash and choose Restore.", (
    f"default namespace: put and get without a namespace must meet in 'default'; got "
    f"{got_default!r}")
got_tenant = plain.get("How do I restore a deleted file?", namespace="acme")
assert got_tenant is None, (
    f"default namespace: an entry stored without a namespace was served to tenant 'acme' as "
    f"{got_tenant!r}; 'default' is a namespace like any other")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record

h = hidden_inputs(
    second=("globex", "umbrella", "hooli", "tyrell", "wayne-ent", "t-42"),
    stranger=("initech", "stark", "cyberdyne", "soylent", "tenant-7", "vandelay"),
    second_ref=range(100, 1000),
    default_pair=(("What payment methods do you accept?", "Cards and bank transfer."),
                  ("How do I set up single sign-on?", "Settings > SSO."),
                  ("Is my data encrypted at rest?", "Yes, with AES-256."),
                  ("How do I contact support?", "Use the Help button."),
                  ("How do I change my billing address?", "Billing > Address > Edit.")))
_second_answer = f"{h.second} rotates keys in its own portal (ref {h.second_ref})."
_acme_first = cache.get(q, namespace="acme")
cache.put(q, _second_answer, namespace=h.second)
_own = {_tenant: cache.get(q, namespace=_tenant) for _tenant in ("acme", h.second)}
_strangers = {_s: cache.get(q, namespace=_s) for _s in (h.stranger, "default")}
cache.put(h.default_pair[0], h.default_pair[1])
rec = record(globex_first=got, acme_first=_acme_first, own=_own, strangers=_strangers,
             default_in_acme=cache.get(h.default_pair[0], namespace="acme"),
             default=cache.get(h.default_pair[0]))
### JUDGE
from course.observe import hidden_inputs
from course.worlds import semantic_cache as sc

h = hidden_inputs(
    second=("globex", "umbrella", "hooli", "tyrell", "wayne-ent", "t-42"),
    stranger=("initech", "stark", "cyberdyne", "soylent", "tenant-7", "vandelay"),
    second_ref=range(100, 1000),
    default_pair=(("What payment methods do you accept?", "Cards and bank transfer."),
                  ("How do I set up single sign-on?", "Settings > SSO."),
                  ("Is my data encrypted at rest?", "Yes, with AES-256."),
                  ("How do I contact support?", "Use the Help button."),
                  ("How do I change my billing address?", "Billing > Address > Edit.")))
assert rec["globex_first"] is None, (
    f"globex asked acme's question and was served acme's answer {rec['globex_first']!r}: a "
    "lookup must search only the asking tenant's namespace")
assert rec["acme_first"] == sc.TENANT_ANSWERS["acme"], (
    "acme's own identical question must still hit in acme's namespace")
_expected = {"acme": sc.TENANT_ANSWERS["acme"],
             h.second: f"{h.second} rotates keys in its own portal (ref {h.second_ref})."}
for tenant, answer in _expected.items():
    own = rec["own"][tenant]
    assert own == answer, (
        f"tenants acme and {h.second!r} stored different answers to the same question; "
        f"{tenant} got {own!r} instead of its own: the namespace must be part of the key")
for stranger in (h.stranger, "default"):
    leaked = rec["strangers"][stranger]
    assert leaked is None, (
        f"namespace {stranger!r} stored nothing but was served {leaked!r}: cross-tenant match")
assert rec["default_in_acme"] is None, (
    f"an entry stored in the default namespace ({h.default_pair[0]!r}) leaked into tenant "
    "'acme'")
assert rec["default"] == h.default_pair[1], (
    f"namespace defaults to 'default' for both put and get: {h.default_pair[0]!r} was stored "
    f"without a namespace and asked without one; got {rec['default']!r}")
### END HIDDEN TESTS

# %% id="ttl_expiry" kind="tests" points=2
from course.clock import FakeClock
from course.worlds import semantic_cache as sc

clock = FakeClock()
cache = SemanticCache(ttl=3600, embed=sc.embed, clock=clock)
cache.put("What is your refund policy?", "Refunds within 30 days.")
clock.advance(3601)
got = cache.get("What is your refund policy?")
assert got is None, (
    f"served {got!r} 3601 s after storing with ttl=3600: entries older than the TTL "
    "must never be returned (read the injected clock, not time.time)")

clock = FakeClock(start=1000.0)
cache = SemanticCache(ttl=600, embed=sc.embed, clock=clock)
cache.put("How do I contact support?", "Use the Help button.")
clock.advance(599)
young = cache.get("How do I contact support?")
assert young == "Use the Help button.", (
    f"ttl expiry: an entry 599 s old with ttl=600 is live and must hit; got {young!r}")
cache.put("How do I contact support?", "Write to the help desk.")
first = cache.get("How do I contact support?")
assert first == "Use the Help button.", (
    f"put never replaces: the same question stored twice, both live, must serve the earliest "
    f"row; got {first!r}")
clock.advance(1)
later = cache.get("How do I contact support?")
assert later == "Write to the help desk.", (
    f"ttl expiry at exactly ttl: the first entry is now 600 s old (ttl=600) and has expired, "
    f"the second is 1 s old and must serve; got {later!r}")

clock = FakeClock(start=0.0)
cache = SemanticCache(embed=sc.embed, clock=clock)
cache.put("How do I restore a deleted file?", "Open Trash and choose Restore.")
clock.advance(3599)
live = cache.get("How do I restore a deleted file?")
clock.advance(1)
dead = cache.get("How do I restore a deleted file?")
assert (live, dead) == ("Open Trash and choose Restore.", None), (
    f"default ttl: with no ttl passed, an entry is live at 3599 s and expired at 3600 s "
    f"(ttl=3600); got {live!r} then {dead!r}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record

h = hidden_inputs(
    start=range(10_000, 90_000, 250), hour=(1800, 2400, 3600, 5400, 7200),
    days=range(7, 60), short=range(30, 300), edge=range(20, 600), edge_start=range(0, 5000, 7),
    twice=range(50, 500), gap=range(1, 50), age=range(1, 3600),
    asked=("What payment methods do you accept?", "How do I set up single sign-on?",
           "Is my data encrypted at rest?", "How do I delete my account?"))
_seen = {"visible_3601": got}
t = FakeClock(start=float(h.start))
hour = SemanticCache(ttl=h.hour, embed=sc.embed, clock=t)
hour.put("What is your refund policy?", "Refunds are possible for a month.")
t.advance(h.hour - 1)
_seen["refund_live"] = hour.get("What is your refund policy?")
hour.put("How do I contact support?", "Use the Help button.")
t.advance(2)
_seen["refund_dead"] = hour.get("What is your refund policy?")
_seen["support_2"] = hour.get("How do I contact support?")
hour.put("What is your refund policy?", f"Refunds within {h.days} days.")
_seen["refund_again"] = hour.get("What is your refund policy?")

t = FakeClock(start=float(h.start % 1000))
minute = SemanticCache(ttl=h.short, embed=sc.embed, clock=t)
minute.put(h.asked, "Cards and bank transfer.")
t.advance(h.short - 1)
_seen["short_live"] = minute.get(h.asked)
t.advance(2)
_seen["short_dead"] = minute.get(h.asked)
t = FakeClock(start=float(h.edge_start))
edge = SemanticCache(ttl=h.edge, embed=sc.embed, clock=t)
edge.put(h.asked, "Cards and bank transfer.")
t.advance(h.edge)
_seen["edge"] = edge.get(h.asked)
t = FakeClock(start=7.0)
twice = SemanticCache(ttl=h.twice, embed=sc.embed, clock=t)
twice.put(h.asked, "Cards.")
t.advance(h.gap)
twice.put(h.asked, "Cards and bank transfer.")
_seen["twice_first"] = twice.get(h.asked)
t.advance(h.twice - h.gap)
_seen["twice_second"] = twice.get(h.asked)
t = FakeClock(start=500.0)
plain = SemanticCache(embed=sc.embed, clock=t)
plain.put("How do I set up single sign-on?", "Settings > SSO.")
t.advance(h.age)
_seen["default_live"] = plain.get("How do I set up single sign-on?")
t.advance(3600 - h.age)
_seen["default_3600"] = plain.get("How do I set up single sign-on?")
rec = record(**_seen)
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(
    start=range(10_000, 90_000, 250), hour=(1800, 2400, 3600, 5400, 7200),
    days=range(7, 60), short=range(30, 300), edge=range(20, 600), edge_start=range(0, 5000, 7),
    twice=range(50, 500), gap=range(1, 50), age=range(1, 3600),
    asked=("What payment methods do you accept?", "How do I set up single sign-on?",
           "Is my data encrypted at rest?", "How do I delete my account?"))
assert rec["visible_3601"] is None, (
    f"served {rec['visible_3601']!r} 3601 s after storing with ttl=3600: entries older than "
    "the TTL must never be returned (read the injected clock, not time.time)")
assert rec["refund_live"] == "Refunds are possible for a month.", (
    f"an entry {h.hour - 1} s old with ttl={h.hour} is still valid and must hit; got "
    f"{rec['refund_live']!r}")
assert rec["refund_dead"] is None, (
    f"the refund entry is now {h.hour + 1} s old (ttl={h.hour}) and must be a miss; got "
    f"{rec['refund_dead']!r}")
assert rec["support_2"] == "Use the Help button.", (
    "expiry is per entry: the support entry is 2 s old and must still hit; do not flush "
    "the whole cache when one entry expires")
assert rec["refund_again"] == f"Refunds within {h.days} days.", (
    "storing the question again after it expired must give the new, fresh answer; got "
    f"{rec['refund_again']!r}")
assert rec["short_live"] is not None, f"ttl={h.short}: an entry {h.short - 1} s old is live"
assert rec["short_dead"] is None, (
    f"ttl={h.short} was ignored: an entry {h.short + 1} s old was served")
assert rec["edge"] is None, (
    f"an entry exactly ttl={h.edge} s old was served; it is live only while its age is below "
    "ttl")
assert rec["twice_first"] == "Cards.", (
    f"put never replaces: two live rows for one question (stored {h.gap} s apart, "
    f"ttl={h.twice}) must serve the earliest; got {rec['twice_first']!r}")
assert rec["twice_second"] == "Cards and bank transfer.", (
    f"ttl expiry: the first row is exactly {h.twice} s old (ttl={h.twice}) and expired, the "
    f"second is {h.twice - h.gap} s old and must serve; got {rec['twice_second']!r}")
assert rec["default_live"] == "Settings > SSO.", (
    f"default ttl is 3600: an entry {h.age} s old must hit; got {rec['default_live']!r}")
assert rec["default_3600"] is None, (
    f"default ttl is 3600: an entry exactly 3600 s old has expired; got "
    f"{rec['default_3600']!r}")
### END HIDDEN TESTS

# %% id="cacheable_filter" kind="tests" points=2
assert cacheable("what is my balance", "$12.40") is False, (
    "'what is my balance' is specific to one user; storing it serves their balance to the "
    "next person who asks")
assert cacheable("What is your refund policy?", "Refunds within 30 days.") is True, (
    "'your refund policy' was refused: match whole words, 'your' does not contain 'our'")
_generic = "Go to Settings and follow the steps."
for _asked, _kind in [
        ("Is this seat MINE?", "user-specific (mine, any case)"),
        ("When is Our renewal?", "user-specific (our, any case)"),
        ("Are these seats ours?", "user-specific (ours)"),
        ("Is the API down now?", "time-sensitive (now)"),
        ("What is on TODAY?", "time-sensitive (today, any case)"),
        ("Is there a release tonight?", "time-sensitive (tonight)"),
        ("Is support open tomorrow?", "time-sensitive (tomorrow)"),
        ("Was there an outage yesterday?", "time-sensitive (yesterday)"),
        ("Is billing currently slow?", "time-sensitive (currently)"),
        ("What is the current SLA?", "time-sensitive (current)"),
        ("Which is the latest SDK?", "time-sensitive (latest)"),
        ("Is the queue long right now?", "time-sensitive (right now)"),
        ("Is login slow at the moment?", "time-sensitive (at the moment)"),
        ("Where is order 4821?", "identifier in the question (4 digits)"),
        ("Resend INV-77310 please", "identifier in the question (INV-77310)"),
        ("Why was #9034 closed?", "identifier in the question (#9034)")]:
    _said = cacheable(_asked, _generic)
    assert _said is False, (
        f"cacheable {_kind}: cacheable({_asked!r}, ...) returned {_said!r}; it must be False")
_said = cacheable("Where do I find invoices?", "Invoice 55120 is under Billing.")
assert _said is False, (
    f"cacheable identifier in the answer: an answer quoting 55120 returned {_said!r}; "
    "check the answer for 4+ digits too")
for _asked, _why in [("Why does the API return error 429?", "3 digits are not an identifier"),
                     ("Is the outage known?", "'known' does not contain 'now'"),
                     ("How do I see the currency list?", "'currency' is not 'current'")]:
    _said = cacheable(_asked, _generic)
    assert _said is True, (
        f"cacheable whole words: cacheable({_asked!r}, ...) returned {_said!r}; {_why}")
_said = cacheable("How do I reset a password?", "Open our login page now and click Reset.")
assert _said is True, (
    f"cacheable reads the user-specific and time-sensitive words in the QUESTION only: a "
    f"generic question whose answer says 'our' and 'now' returned {_said!r}; only "
    "identifiers are looked for in the answer too")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record

h = hidden_inputs(
    order=range(1000, 1_000_000), invoice=range(1000, 100_000), ticket=range(1000, 100_000),
    answer_id=range(1000, 1_000_000), error=range(100, 1000),
    mine=("my", "My", "MY", "mY"), ours=("our", "Our", "OUR", "ours", "Ours", "OURS"),
    moment=("now", "right now", "Right Now", "at the moment", "At The Moment", "NOW"),
    when=("today", "Today", "tonight", "TONIGHT", "tomorrow", "yesterday", "currently",
          "Current", "latest", "LATEST"),
    generic=("A generic answer.", "Go to Settings and follow the steps.",
             "See the Help Center article on this topic."))
_refuse = {
    "user-specific": [f"Show {h.mine} last three invoices", "When does our contract renew?",
                      "Is this laptop mine to keep?", f"What is {h.mine} balance?",
                      f"Are the saved reports {h.ours.upper()}?",
                      f"Where are {h.ours} saved reports?",
                      "What's the process for changing my API key?"],
    "time-sensitive": [f"is the API up {h.moment}", "What is the exchange rate today?",
                       "Is the dashboard currently down?", "What is the latest release?",
                       "Will the office be open tomorrow?", "Is the site slow at the moment?",
                       f"Can support be reached {h.moment}", "Is maintenance planned Tonight?",
                       "Why did sync fail yesterday?", "What is the Current uptime?",
                       f"What is the status {h.when}?"],
    "identifier": [f"Where is order {h.order}?", f"Please resend invoice INV-{h.invoice}",
                   f"Why was ticket #{h.ticket} closed?"],
}
_allow = ["how do I rotate an API key", "What is your refund policy?", "Is YOUR SLA known?",
          "How do I export a report to CSV?", "Which payment methods do you accept?",
          "How do I set up single sign-on?", f"Why do I see error {h.error}?",
          "Which currency is the invoice in?"]
_answer_words = ["Use the form on our Billing page.", f"The change applies {h.moment}.",
                 f"{h.mine.capitalize()} team answers at the moment you write; the current "
                 f"form is under Settings.", f"Error {h.error} is listed on {h.ours} status page."]
rec = record(
    balance=cacheable("what is my balance", "$12.40"),
    your_policy=cacheable("What is your refund policy?", "Refunds within 30 days."),
    refused={_kind: [cacheable(_q, h.generic) for _q in _qs] for _kind, _qs in _refuse.items()},
    answer_id=cacheable("Where can I download invoices?",
                        f"Invoice {h.answer_id} is under Billing > Invoices."),
    allowed=[cacheable(_q, h.generic) for _q in _allow],
    answer_words=[cacheable("How do I change the billing email?", _a) for _a in _answer_words])
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(
    order=range(1000, 1_000_000), invoice=range(1000, 100_000), ticket=range(1000, 100_000),
    answer_id=range(1000, 1_000_000), error=range(100, 1000),
    mine=("my", "My", "MY", "mY"), ours=("our", "Our", "OUR", "ours", "Ours", "OURS"),
    moment=("now", "right now", "Right Now", "at the moment", "At The Moment", "NOW"),
    when=("today", "Today", "tonight", "TONIGHT", "tomorrow", "yesterday", "currently",
          "Current", "latest", "LATEST"),
    generic=("A generic answer.", "Go to Settings and follow the steps.",
             "See the Help Center article on this topic."))
_refuse = {
    "user-specific": [f"Show {h.mine} last three invoices", "When does our contract renew?",
                      "Is this laptop mine to keep?", f"What is {h.mine} balance?",
                      f"Are the saved reports {h.ours.upper()}?",
                      f"Where are {h.ours} saved reports?",
                      "What's the process for changing my API key?"],
    "time-sensitive": [f"is the API up {h.moment}", "What is the exchange rate today?",
                       "Is the dashboard currently down?", "What is the latest release?",
                       "Will the office be open tomorrow?", "Is the site slow at the moment?",
                       f"Can support be reached {h.moment}", "Is maintenance planned Tonight?",
                       "Why did sync fail yesterday?", "What is the Current uptime?",
                       f"What is the status {h.when}?"],
    "identifier": [f"Where is order {h.order}?", f"Please resend invoice INV-{h.invoice}",
                   f"Why was ticket #{h.ticket} closed?"],
}
_allow = ["how do I rotate an API key", "What is your refund policy?", "Is YOUR SLA known?",
          "How do I export a report to CSV?", "Which payment methods do you accept?",
          "How do I set up single sign-on?", f"Why do I see error {h.error}?",
          "Which currency is the invoice in?"]
_answer_words = ["Use the form on our Billing page.", f"The change applies {h.moment}.",
                 f"{h.mine.capitalize()} team answers at the moment you write; the current "
                 f"form is under Settings.", f"Error {h.error} is listed on {h.ours} status page."]
assert rec["balance"] is False, (
    "'what is my balance' is specific to one user; storing it serves their balance to the "
    "next person who asks")
assert rec["your_policy"] is True, (
    "'your refund policy' was refused: match whole words, 'your' does not contain 'our'")
assert sorted(rec["refused"]) == sorted(_refuse), (
    f"the refusals asked were {sorted(rec['refused'])}")
for kind, questions in _refuse.items():
    assert len(rec["refused"][kind]) == len(questions), f"{kind}: {rec['refused'][kind]}"
    for asked, said in zip(questions, rec["refused"][kind], strict=True):
        assert said is False, (
            f"cacheable({asked!r}) returned {said!r}; a {kind} question must never be stored")
assert rec["answer_id"] is False, (
    f"an answer quoting an identifier ({h.answer_id}) was read from one customer's data: not "
    "cacheable")
assert len(rec["allowed"]) == len(_allow), f"the allowed questions gave {rec['allowed']}"
for asked, said in zip(_allow, rec["allowed"], strict=True):
    assert said is True, (
        f"cacheable({asked!r}) returned {said!r}: a generic how-to question with a generic "
        "answer is exactly what the cache is for")
assert len(rec["answer_words"]) == len(_answer_words), f"got {rec['answer_words']}"
for answer, said in zip(_answer_words, rec["answer_words"], strict=True):
    assert said is True, (
        f"cacheable reads the user-specific and time-sensitive words in the question only: a "
        f"generic question answered {answer!r} returned {said!r}")
### END HIDDEN TESTS

# %% id="hit_miss_counters" kind="tests" points=2
from course.clock import FakeClock
from course.worlds import semantic_cache as sc

cache = SemanticCache(embed=sc.embed, clock=FakeClock())
assert cache.hit_rate == 0.0, "before any lookup the hit rate is 0.0 (not a ZeroDivisionError)"
probe = SemanticCache(embed=sc.embed, clock=FakeClock())
probe.get("How do I restore a deleted file?")
probe.put("How do I restore a deleted file?", "Open Trash and choose Restore.")
counts = (probe.hits, probe.misses)
assert counts == (0, 1), (
    f"hit/miss counters: one miss on an empty cache, then one put, must give (hits, misses) = "
    f"(0, 1); got {counts!r} (put is not a lookup)")
probe.get("How do I restore a deleted file?")
probe.get("How do I restore a deleted file?")
probe.get("What payment methods do you accept?")
counts = (probe.hits, probe.misses, probe.hit_rate)
assert counts[:2] == (2, 2) and abs(counts[2] - 0.5) < 1e-12, (
    f"hit/miss counters: after 2 hits and 2 misses (hits, misses, hit_rate) must be "
    f"(2, 2, 0.5), hit_rate = hits / (hits + misses); got {counts!r}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record

h = hidden_inputs(
    kept=("Is my data encrypted at rest?", "How do I contact support?",
          "What payment methods do you accept?", "How do I set up single sign-on?",
          "How do I restore a deleted file?", "How do I change my billing address?"),
    variant=(sc.TRIVIAL_VARIANTS[1],
             ("how do i reset my password", "How do I reset my password?"),
             sc.TRIVIAL_VARIANTS[2],
             ("How do I export my data to CSV", "How do I export my data to CSV?"),
             sc.TRIVIAL_VARIANTS[3],
             ("what are the api rate limits?", "What are the API rate limits?")),
    near=range(len(sc.NEAR_MISSES)), step=range(1, 12),
    pattern=("ABmnA", "mAnBB", "AmBnA", "BmAAnm", "nBAmA", "ABmAn", "mnABA", "BBmA", "AnmmB"))


def _counts(c):
    return [getattr(v, "item", lambda v=v: v)() for v in (c.hits, c.misses, c.hit_rate)]


_asks = {"A": h.kept, "B": h.variant[1], "m": sc.NEAR_MISSES[h.near][1],
         "n": sc.NEAR_MISSES[(h.near + h.step) % len(sc.NEAR_MISSES)][0]}
_before = _counts(cache)
_empty = cache.get(h.kept)
cache.put(h.kept, "<the kept answer>")
cache.put(h.variant[0], "<the variant's answer>")
_after_puts = _counts(cache)
_outcomes = [cache.get(_asks[_letter]) for _letter in h.pattern]
rec = record(before=_before, empty=_empty, after_puts=_after_puts, outcomes=_outcomes,
             after=_counts(cache))
### JUDGE
from course.observe import hidden_inputs
from course.worlds import semantic_cache as sc

h = hidden_inputs(
    kept=("Is my data encrypted at rest?", "How do I contact support?",
          "What payment methods do you accept?", "How do I set up single sign-on?",
          "How do I restore a deleted file?", "How do I change my billing address?"),
    variant=(sc.TRIVIAL_VARIANTS[1],
             ("how do i reset my password", "How do I reset my password?"),
             sc.TRIVIAL_VARIANTS[2],
             ("How do I export my data to CSV", "How do I export my data to CSV?"),
             sc.TRIVIAL_VARIANTS[3],
             ("what are the api rate limits?", "What are the API rate limits?")),
    near=range(len(sc.NEAR_MISSES)), step=range(1, 12),
    pattern=("ABmnA", "mAnBB", "AmBnA", "BmAAnm", "nBAmA", "ABmAn", "mnABA", "BBmA", "AnmmB"))
rate0 = rec["before"][2]
assert isinstance(rate0, int | float) and rate0 == 0.0, (
    f"before any lookup the hit rate is 0.0 (not a ZeroDivisionError); got {rate0!r}")
assert rec["empty"] is None, (
    f"an empty cache is a miss: {h.kept!r} asked first was served {rec['empty']!r}")
hits, misses, _ = rec["after_puts"]
assert (hits, misses) == (0, 1), (
    f"after 1 lookup on an empty cache and 2 puts: hits={hits} misses={misses}; "
    "put is not a lookup and must not touch the counters")
_asks = {"A": h.kept, "B": h.variant[1], "m": sc.NEAR_MISSES[h.near][1],
         "n": sc.NEAR_MISSES[(h.near + h.step) % len(sc.NEAR_MISSES)][0]}
want = [letter in "AB" for letter in h.pattern]
served = [o is not None for o in rec["outcomes"]]
assert served == want, (
    f"stored {h.kept!r} and {h.variant[0]!r}, then asked "
    f"{[_asks[letter] for letter in h.pattern]}: expected "
    f"{['hit' if w else 'miss' for w in want]}; got {['hit' if s else 'miss' for s in served]}")
n_hits = sum(want)
n_misses = len(want) - n_hits + 1
hits, misses, rate = rec["after"]
assert (hits, misses) == (n_hits, n_misses), (
    f"hits={hits} misses={misses}; expected {n_hits} hits and {n_misses} misses (every get "
    "counts exactly once)")
assert isinstance(rate, int | float) and abs(rate - n_hits / (n_hits + n_misses)) < 1e-12, (
    f"hit_rate={rate}; {n_hits} hits in {n_hits + n_misses} lookups is "
    f"{n_hits / (n_hits + n_misses):g} (hits / (hits + misses))")
### END HIDDEN TESTS

# %% id="default_threshold" kind="tests" points=1
import numpy as np

from course.clock import FakeClock
from course.worlds import semantic_cache as sc

cache = SemanticCache(embed=sc.embed, clock=FakeClock())
cache.put("Cancel the meeting on Monday", "Monday's meeting is cancelled.")
got = cache.get("Cancel the meeting on Tuesday")
assert got is None, (
    f"with the default threshold, 'Tuesday' was served Monday's answer {got!r} (cosine "
    "0.969): the default is 0.98, and 0.95 ships this false hit")
same = cache.get("Cancel the meeting on Monday")
assert same == "Monday's meeting is cancelled.", (
    f"default threshold: the identical question (cosine 1.0) must hit at 0.98; got {same!r}")

# Vectors whose cosines are exact in binary floating point: 1.0, 0.5 and 0.0.
exact = {k: np.array(v) for k, v in {"a": [2.0, 0.0, 0.0, 0.0], "b": [1.0, 0.0, 0.0, 0.0],
                                     "c": [1.0, 1.0, 1.0, 1.0], "d": [0.0, 3.0, 0.0, 0.0]}.items()}
at_one = SemanticCache(threshold=1.0, embed=exact.get, clock=FakeClock())
at_one.put("a", "<a>")
got_b = at_one.get("b")
assert got_b == "<a>", (
    f"threshold boundary: cosine exactly 1.0 with threshold=1.0 must hit (a hit needs "
    f"cosine >= threshold); got {got_b!r}")
at_half = SemanticCache(threshold=0.5, embed=exact.get, clock=FakeClock())
at_half.put("a", "<a>")
got_c, got_d = at_half.get("c"), at_half.get("d")
assert (got_c, got_d) == ("<a>", None), (
    f"threshold boundary: with threshold=0.5, cosine exactly 0.5 must hit and cosine 0.0 "
    f"must miss; got {got_c!r} and {got_d!r}")
closest = SemanticCache(threshold=0.5, embed=exact.get, clock=FakeClock())
closest.put("c", "<c>")
closest.put("a", "<a>")
got_best = closest.get("b")
assert got_best == "<a>", (
    "the closest live question wins: 'b' scores 0.5 against the first row 'c' and 1.0 "
    f"against the second row 'a', both at or over threshold=0.5, so '<a>'; got {got_best!r}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record

h = hidden_inputs(
    below=((0, 1, 2), (2, 0, 1), (1, 2), (0, 2), (2, 1), (0, 1)),
    close=(sc.TRIVIAL_VARIANTS[2],
           ("How do I export my data to CSV", "How do I export my data to CSV?"),
           sc.TRIVIAL_VARIANTS[1],
           ("how do i reset my password", "How do I reset my password?"),
           sc.TRIVIAL_VARIANTS[3]),
    axis=range(4), flip=range(1, 4), scale=(0.5, 2.0, 4.0, 8.0),
    order=(("r", "p", "s"), ("r", "s", "p"), ("s", "r", "p")))
_just_below = [(("Show the invoice for January 2024", "Show the invoice for January 2025"),
                ("Limit the API to 60 requests per minute",
                 "Limit the API to 600 requests per minute"),
                ("Refund the order placed on 12 April",
                 "Refund the order placed on 21 April"))[_i] for _i in h.below]


def _ask(stored_q, asked_q, answer):
    fresh = SemanticCache(embed=sc.embed, clock=FakeClock())
    fresh.put(stored_q, answer)
    return fresh.get(asked_q)


def _vec(k):
    """The question 'q' is a unit vector on one axis, 'p' the same direction longer; 'r' and
    's' are +-1 everywhere (length 2) with cosines 0.5 and -0.5 to 'q'."""
    if k in "pq":
        v = np.zeros(4)
        v[h.axis] = 1.0 if k == "q" else h.scale * 4
        return v
    v = np.ones(4) * h.scale
    v[(h.axis + h.flip) % 4] *= -1
    return v if k == "r" else -v


_exact = {_k: _vec(_k) for _k in "pqrs"}
_strict = SemanticCache(threshold=1.0, embed=_exact.get, clock=FakeClock())
_strict.put("p", "<p>")
_half = SemanticCache(threshold=0.5, embed=_exact.get, clock=FakeClock())
_half.put("p", "<p>")
_closest = SemanticCache(threshold=0.5, embed=_exact.get, clock=FakeClock())
for _k in h.order:
    _closest.put(_k, f"<{_k}>")
rec = record(closest=_closest.get("q"), monday=got,
             boundary=[_strict.get("q"), _half.get("r"), _half.get("s")],
             below=[_ask(_s, _a, f"<answer for {_s}>") for _s, _a in _just_below],
             close=_ask(h.close[0], h.close[1], "<stored>"))
### JUDGE
from course.observe import hidden_inputs
from course.worlds import semantic_cache as sc

h = hidden_inputs(
    below=((0, 1, 2), (2, 0, 1), (1, 2), (0, 2), (2, 1), (0, 1)),
    close=(sc.TRIVIAL_VARIANTS[2],
           ("How do I export my data to CSV", "How do I export my data to CSV?"),
           sc.TRIVIAL_VARIANTS[1],
           ("how do i reset my password", "How do I reset my password?"),
           sc.TRIVIAL_VARIANTS[3]),
    axis=range(4), flip=range(1, 4), scale=(0.5, 2.0, 4.0, 8.0),
    order=(("r", "p", "s"), ("r", "s", "p"), ("s", "r", "p")))
_just_below = [(("Show the invoice for January 2024", "Show the invoice for January 2025"),
                ("Limit the API to 60 requests per minute",
                 "Limit the API to 600 requests per minute"),
                ("Refund the order placed on 12 April",
                 "Refund the order placed on 21 April"))[_i] for _i in h.below]
assert rec["monday"] is None, (
    f"with the default threshold, 'Tuesday' was served Monday's answer {rec['monday']!r} "
    "(cosine 0.969): the default is 0.98, and 0.95 ships this false hit")
assert len(rec["below"]) == len(_just_below), f"the near misses gave {rec['below']}"
for (stored_q, asked_q), wrong in zip(_just_below, rec["below"], strict=True):
    assert wrong is None, (
        f"default threshold served {asked_q!r} the answer to {stored_q!r} (cosine 0.95 to "
        "0.97): keep the 0.98 default")
assert rec["close"] == "<stored>", (
    f"{h.close[1]!r} vs {h.close[0]!r} has cosine above 0.99 and must hit at the 0.98 "
    f"default; got {rec['close']!r}")
assert rec["boundary"] == ["<p>", "<p>", None], (
    f"threshold boundary: cosines exactly 1.0 (threshold 1.0), 0.5 (threshold 0.5) and -0.5 "
    f"must give hit, hit, miss (a hit needs cosine >= threshold); got {rec['boundary']!r}")
_scores = {"r": "0.5", "p": "1.0", "s": "-0.5"}
assert rec["closest"] == "<p>", (
    f"rows {', '.join(h.order)} score {', '.join(_scores[k] for k in h.order)} against the "
    "question at threshold 0.5: the closest row, p, must answer, not the first one over the "
    f"threshold; got {rec['closest']!r}")
### END HIDDEN TESTS

# %% id="threshold_from_sweep" kind="tests" points=2
from course.clock import FakeClock
from course.worlds import semantic_cache as sc
from course.worlds.semantic_cache import SweepRow

rows = sc.sweep(sc.PARAPHRASES, sc.NEAR_MISSES, sc.THRESHOLDS, embed=sc.embed)
picked = pick_threshold(rows)


def row(th, fp):
    return SweepRow(th, 0, fp, 0.0, fp / 25)


shuffled = [row(0.97, 1), row(0.90, 6), row(0.99, 0), row(0.95, 3), row(0.98, 0), row(0.999, 0)]
assert pick_threshold(shuffled) == 0.99, (
    f"picked {pick_threshold(shuffled)}: the first zero is 0.98, and the rule is ONE NOTCH ABOVE "
    "it, 0.99 (rows come in any order: sort by threshold)")
first_zero = min(r.threshold for r in rows if r.false_hits == 0)
notch = min(r.threshold for r in rows if r.threshold > first_zero)
assert picked == notch, (
    f"pick_threshold on the sweep above: the first zero is {first_zero}, one notch above it "
    f"is {notch}; got {picked!r}")
for bad, why in [([row(0.96, 0), row(0.92, 4)], "the first zero is the top of the grid"),
                 ([row(0.93, 3), row(0.97, 1), row(0.99, 1)], "no threshold reaches zero")]:
    try:
        said = pick_threshold(bad)
    except ValueError:
        continue
    except Exception as exc:  # noqa: BLE001 - the wrong exception is the finding
        said = f"{type(exc).__name__}: {exc}"
    raise AssertionError(
        f"pick_threshold must raise ValueError when {why} (extend the grid); got {said!r}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, outcome, record

h = hidden_inputs(
    grid=((0.80, 0.85, 0.90, 0.94, 0.97, 0.99), (0.70, 0.80, 0.88, 0.92, 0.96, 0.999),
          (0.60, 0.75, 0.85, 0.95, 0.98, 0.995, 0.999)),
    zero_at=range(1, 4), turn=range(1, 5), kept=range(8, 26))
_n = len(h.grid)
_zero = [2 * max(h.zero_at - _i, 0) for _i in range(_n)]
_order = list(range(h.turn, _n)) + list(range(h.turn))
strict = SemanticCache(threshold=picked, embed=sc.embed, clock=FakeClock())
for i, (stored_q, _) in enumerate(sc.NEAR_MISSES[:h.kept]):
    strict.put(stored_q, f"answer {i}")
rec = record(
    picked=picked, shuffled=outcome(pick_threshold, shuffled),
    drawn=outcome(pick_threshold, [row(h.grid[_i], _zero[_i]) for _i in _order]),
    bad={_why: outcome(pick_threshold, [row(h.grid[_i], _fp[_i]) for _i in _order])
         for _fp, _why in [([_n - _i for _i in range(_n)], "no zero"),
                           ([_n - 1 - _i for _i in range(_n)], "zero only at the top")]},
    strict=[[_asked, strict.get(_asked)] for _, _asked in sc.NEAR_MISSES[:h.kept]])
### JUDGE
from course.observe import hidden_inputs
from course.worlds import semantic_cache as sc

h = hidden_inputs(
    grid=((0.80, 0.85, 0.90, 0.94, 0.97, 0.99), (0.70, 0.80, 0.88, 0.92, 0.96, 0.999),
          (0.60, 0.75, 0.85, 0.95, 0.98, 0.995, 0.999)),
    zero_at=range(1, 4), turn=range(1, 5), kept=range(8, 26))
_n = len(h.grid)
_zero = [2 * max(h.zero_at - _i, 0) for _i in range(_n)]
_order = list(range(h.turn, _n)) + list(range(h.turn))
shuffled = rec["shuffled"]
assert shuffled["raised"] is None and shuffled["value"] == 0.99, (
    f"picked {shuffled['value'] if shuffled['raised'] is None else shuffled['raised']}: the "
    "first zero is 0.98, and the rule is ONE NOTCH ABOVE it, 0.99 (rows come in any order: "
    "sort by threshold)")
drawn = rec["drawn"]
_sweep = ", ".join(f"{h.grid[i]:g}: {_zero[i]}" for i in _order)
assert drawn["raised"] is None and drawn["value"] == h.grid[h.zero_at + 1], (
    f"on the sweep (threshold: false hits) {_sweep} you "
    + (f"picked {drawn['value']!r}" if drawn["raised"] is None
       else f"raised {drawn['raised']['type']}")
    + f"; the first zero is {h.grid[h.zero_at]:g}, and one notch above it is "
    f"{h.grid[h.zero_at + 1]:g} (rows come in any order: sort by threshold)")
rows = sc.sweep(sc.PARAPHRASES, sc.NEAR_MISSES, sc.THRESHOLDS, embed=sc.embed)
first_zero = min(r.threshold for r in rows if r.false_hits == 0)
notch = min(r.threshold for r in rows if r.threshold > first_zero)
picked = rec["picked"]
assert picked == notch, (
    f"picked {picked}; the lowest threshold with zero false hits is {first_zero}, and the rule "
    f"is one notch higher: {notch}")
assert sorted(rec["bad"]) == ["no zero", "zero only at the top"], f"got {rec['bad']}"
for why, got in rec["bad"].items():
    assert got["raised"] is not None and got["raised"]["type"] == "ValueError", (
        f"pick_threshold returned {got['value']!r} for a sweep with {why}"
        + (f" (it raised {got['raised']['type']})" if got["raised"] else "")
        + "; raise ValueError: the grid must be extended")
assert [asked for asked, _ in rec["strict"]] == [b for _, b in sc.NEAR_MISSES[:h.kept]], (
    f"the near misses asked were {[asked for asked, _ in rec['strict']]}")
slipped = [asked for asked, served in rec["strict"] if served is not None]
assert slipped == [], (
    f"at the picked threshold {picked} the cache still served near misses {slipped}")
### END HIDDEN TESTS

# %% id="vectorised_lookup" kind="tests" points=2
from course.clock import FakeClock
from course.worlds import semantic_cache as sc


def lines_per_get(rows):
    cache = SemanticCache(embed=sc.embed, clock=FakeClock())
    texts = sc.all_texts()
    for i in range(rows):
        cache.put(texts[i % len(texts)], f"answer {i}")
    probe = texts[rows % len(texts)]
    cache.get(probe)
    got, lines = sc.python_lines_run(cache.get, probe)
    assert got is not None, (
        f"{probe!r} was stored and missed in a table of {rows} rows; entries read the "
        "injected clock (clock()), not time.time()")
    return lines


small = lines_per_get(200)
large = lines_per_get(1200)
assert large - small < 200, (
    f"one get ran {small} Python lines at 200 rows, {large} at 1200: the lookup loops over rows; "
    "score all rows with one matrix-vector product")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record

h = hidden_inputs(small=range(150, 400), large=range(1000, 1600), larger=range(2000, 3200))


def _observe(rows):
    cache = SemanticCache(embed=sc.embed, clock=FakeClock())
    texts = sc.all_texts()
    for i in range(rows):
        cache.put(texts[i % len(texts)], f"answer {i}")
    probe = texts[rows % len(texts)]
    cache.get(probe)
    got, lines = sc.python_lines_run(cache.get, probe)
    return {"rows": rows, "probe": probe, "got": got, "lines": lines}


rec = record(runs=[_observe(_rows) for _rows in (h.small, h.large, h.larger)])
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(small=range(150, 400), large=range(1000, 1600), larger=range(2000, 3200))
runs = rec["runs"]
assert [run["rows"] for run in runs] == [h.small, h.large, h.larger], f"ran {runs}"
for run in runs:
    assert run["got"] is not None, (
        f"{run['probe']!r} was stored and missed in a table of {run['rows']} rows; entries "
        "read the injected clock (clock()), not time.time()")
small, large, larger = (run["lines"] for run in runs)
assert large - small < 200, (
    f"one get ran {small} Python lines at {h.small} rows, {large} at {h.large}: the lookup "
    "loops over rows; score all rows with one matrix-vector product")
assert larger - small < 200, (
    f"one get ran {small} Python lines at {h.small} rows and {larger} at {h.larger}: keep the "
    "lookup one matrix-vector product, and evict expired rows with an array mask")
### END HIDDEN TESTS

# %% id="normalises_vectors" kind="tests" points=2
from course.clock import FakeClock
from course.worlds import semantic_cache as sc

cache = SemanticCache(embed=sc.embed_unnormalised, clock=FakeClock())
cache.put("charge for March", "<March invoice>")
got = cache.get("charge for May")
assert got is None, (
    f"'charge for May' was served {got!r}: its cosine with 'charge for March' is 0.673, but "
    "these vectors have length 4.8 to 7.9, so a raw dot product is ~29. Scale every vector to "
    "length 1 before comparing")


def tenth(text):
    return 0.1 * sc.embed(text)


small = SemanticCache(embed=tenth, clock=FakeClock())
small.put("How do I restore a deleted file?", "Open Trash and choose Restore.")
same = small.get("How do I restore a deleted file?")
assert same == "Open Trash and choose Restore.", (
    f"normalise vectors: embed returned length-0.1 vectors, the identical question has "
    f"cosine 1.0 but a raw dot product of 0.01; it must hit, got {same!r}")
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record

h = hidden_inputs(kind=("name", "amount"), factor=(0.5, 0.3, 0.2, 0.05, 0.01),
                  pair=(("Is my data encrypted at rest?", "Yes, with AES-256."),
                        ("How do I delete my account?", "Settings > Account > Delete."),
                        ("How do I contact support?", "Use the Help button."),
                        ("What happens when my trial ends?", "You move to the free plan.")))
raw = SemanticCache(embed=sc.embed_unnormalised, clock=FakeClock())
named = [p for p, kind, c in zip(sc.NEAR_MISSES, sc.NEAR_MISS_KINDS,
                                 sc.pair_cosines(sc.NEAR_MISSES), strict=True)
         if kind == h.kind and c < 0.9]
for i, (stored_q, _) in enumerate(named):
    raw.put(stored_q, f"answer {i}")
_named = [[_a, raw.get(_a)] for _, _a in named]


def shrunk(text):
    return h.factor * sc.embed(text)


half = SemanticCache(embed=shrunk, clock=FakeClock())
half.put(h.pair[0], h.pair[1])
rec = record(may=got, named=_named, same=half.get(h.pair[0]))
### JUDGE
from course.observe import hidden_inputs
from course.worlds import semantic_cache as sc

h = hidden_inputs(kind=("name", "amount"), factor=(0.5, 0.3, 0.2, 0.05, 0.01),
                  pair=(("Is my data encrypted at rest?", "Yes, with AES-256."),
                        ("How do I delete my account?", "Settings > Account > Delete."),
                        ("How do I contact support?", "Use the Help button."),
                        ("What happens when my trial ends?", "You move to the free plan.")))

assert rec["may"] is None, (
    f"'charge for May' was served {rec['may']!r}: its cosine with 'charge for March' is "
    "0.673, but these vectors have length 4.8 to 7.9, so a raw dot product is ~29. Scale "
    "every vector to length 1 before comparing")
_asked = [b for (_, b), kind, c in zip(sc.NEAR_MISSES, sc.NEAR_MISS_KINDS,
                                      sc.pair_cosines(sc.NEAR_MISSES), strict=True)
          if kind == h.kind and c < 0.9]
assert [asked for asked, _ in rec["named"]] == _asked, (
    f"the {h.kind}-swapped near misses were not asked: {rec['named']}")
wrong = [asked for asked, served in rec["named"] if served is not None]
assert wrong == [], (
    f"served near misses {wrong}; every one asked has cosine below 0.9 to every stored "
    "question, so a cache comparing cosines (unit vectors) at the 0.98 default refuses them "
    "all")
same = rec["same"]
assert same == h.pair[1], (
    f"the identical question missed ({same!r}) when embed returns length-{h.factor:g} "
    f"vectors: the raw dot product is {h.factor ** 2:g}, the cosine is 1.0. Normalise what "
    "embed returns")
### END HIDDEN TESTS

# %% [markdown]
# ## Explain
#
# A new case, with its own numbers. Your team swaps in a bigger embedding model and reruns
# the sweep on 40 labelled paraphrases and 40 near misses:
#
# | threshold | hits (of 40) | false hits (of 40) |
# |---|---|---|
# | 0.88 | 34 | 5 |
# | 0.90 | 31 | 2 |
# | 0.92 | 27 | 0 |
# | 0.94 | 22 | 0 |
# | 0.96 | 15 | 0 |
#
# Which threshold do you deploy, and what hit rate does it give? Why not 0.92, which has
# the higher hit rate and also zero false hits? What would the 0.98 default do on this
# model, and what does that say about defaults? Name the mechanism that makes near misses
# dangerous.

# %% [markdown] id="why_this_threshold" kind="manual" points=3
# ### BEGIN SOLUTION
# **Model answer.** Deploy **0.94**: the lowest zero-false-hit threshold is 0.92, and the
# rule goes one notch higher. It serves 22/40 = 55% of paraphrases from cache, against
# 27/40 = 67.5% at 0.92. 0.92 sits exactly on the edge of the measured data: 40 near
# misses are a sample, and the next one may score just above 0.92 and be served a wrong
# answer; the notch buys margin for 5 paraphrase hits (12.5 points of hit rate). The 0.98
# default is above the table: it would serve far fewer paraphrases (below the 15 at 0.96)
# for no measured safety gain, so a default is a property of the model it was measured
# on, not a constant. Mechanism: an embedding keeps a sentence's gist and drops its
# specifics, so swapping a date, amount or name barely moves the vector; a cache that
# trusts the score serves a confident wrong answer with no error and no model call in the
# logs, which is far worse than a miss (one wasted lookup).
#
# **Mark scheme (3 points).**
# * 1 — pick and number: 0.94, 22/40 = 55% hit rate (vs 67.5% at 0.92).
# * 1 — why the notch: the labelled near misses are a sample; the first zero is on the edge
#   of what was measured. The default 0.98 is a property of another model and data.
# * 1 — mechanism: embeddings keep gist, drop specifics; a false hit is a silent wrong
#   answer, worse than a miss.
# ### END SOLUTION
