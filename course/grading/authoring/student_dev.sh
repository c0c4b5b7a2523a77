#!/usr/bin/env bash
# The student copy's one entry point: makes .venv from this copy's pyproject.toml, then runs.
#   ./dev lab                  JupyterLab on your notebooks (release/), with Validate
#   ./dev validate NOTEBOOK    nbgrader's Validate on one notebook, from the command line
#   ./dev lab --frameworks     also install LangGraph for the framework tier (tier2_langgraph)
# The first run installs the course's packages into .venv (a few minutes, once); nothing is
# installed outside it, and no administrator rights are needed.
set -euo pipefail
cd "$(dirname "$0")"

PY=${PYTHON:-python3}
VENV=.venv
cmd=${1:-}
shift || true
case "$cmd" in
  lab|validate) ;;
  *) sed -n '2,7p' "$0" >&2; exit 2 ;;
esac
extras=()
args=()
for a in "$@"; do
  if [ "$a" = "--frameworks" ]; then extras+=(frameworks); else args+=("$a"); fi
done
# once the framework packages are in .venv, they stay (a later run does not drop them)
if [ -f "$VENV/.frameworks" ] && [ ${#extras[@]} = 0 ]; then extras+=(frameworks); fi

want="$(sha256sum pyproject.toml | cut -c1-16)${extras[*]:+-${extras[*]}}"
if [ ! -f "$VENV/.installed-$want" ]; then
  [ -d "$VENV" ] || { echo "[dev] 1/3 creating $VENV" >&2; "$PY" -m venv "$VENV"; }
  echo "[dev] 2/3 updating pip" >&2
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  # The course package is this folder's course/ (on PYTHONPATH below), so only what it
  # needs is installed: the project's dependencies, and the extras asked for.
  reqs=$("$VENV/bin/python" - "${extras[@]}" <<'PYEOF'
import sys, tomllib
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
wanted = list(project["dependencies"])
for extra in sys.argv[1:]:
    wanted += project.get("optional-dependencies", {}).get(extra, [])
print("\n".join(wanted))
PYEOF
)
  echo "[dev] 3/3 installing $(echo "$reqs" | wc -l) packages${extras[*]:+ (with ${extras[*]})}" >&2
  echo "$reqs" | "$VENV/bin/python" -m pip install --quiet --progress-bar off -r /dev/stdin
  rm -f "$VENV"/.installed-*
  touch "$VENV/.installed-$want"
  [ ${#extras[@]} = 0 ] || touch "$VENV/.frameworks"
  echo "[dev] ready" >&2
fi
export PATH="$PWD/$VENV/bin:$PATH"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export JUPYTER_CONFIG_PATH="$PWD/.jupyter${JUPYTER_CONFIG_PATH:+:$JUPYTER_CONFIG_PATH}"

case "$cmd" in
  lab)      root_flag=(); [ "$(id -u)" = 0 ] && root_flag=(--allow-root)
            exec jupyter lab "${root_flag[@]}" ${args[@]+"${args[@]}"} ;;
  validate) [ ${#args[@]} = 1 ] || { echo "usage: ./dev validate NOTEBOOK" >&2; exit 2; }
            # nbgrader's validate through course.validate_messages: one entry per failing
            # check, and exit status 1 when validation fails (nbgrader's own exits 0)
            exec python -c 'import sys; from course.validate_messages import main; sys.exit(main())' "${args[0]}" ;;
esac
