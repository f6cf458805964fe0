#!/usr/bin/env bash
# Runs the paper-scale DAG (config.yaml) on one machine in phases, each a Snakemake call with
# --rerun-incomplete, so that an interrupted run resumes where it stopped and the cells that
# say most come first. Run it detached, at a low priority, from a checkout with the project
# installed:
#   (nohup setsid nice -n 15 bash tools/paper_run.sh > paper_run.log 2>&1 &)
# Phases (default: all, in this order; name some to run only those):
#   mackey_glass
#             every Mackey-Glass cell with all four variants and both pretraining modes: its
#             rollouts are the cheapest, so a task's whole rows of Tables 1 and 2 come first
#             (~6 h on 2 cores; ny 6 alone, 70 min, is the cheapest cell with every column)
#   baseline  the RON and unoptimized cells of ADIAC and Lorenz96
#   adiac lorenz96
#             every cell of that task with all four variants and both pretraining modes
#   smnist    sMNIST's RON and unoptimized cells (hours of rollouts that no pretraining changes;
#             after ADIAC and Lorenz96, so that those tasks' whole rows come first)
#   TASK/pretraining, TASK/nyN/pretraining
#             a task's trainings and their evaluations (its rows of Table 1: eight, or that
#             cell's two) without the rollouts of Table 2 (sMNIST's cost more on a CPU than the
#             rest of the DAG together)
#   smnist_pretrained
#             sMNIST's pretraining and its pretrained and partial cells
#   TASK/nyN  one cell of a task (lorenz96/ny12): all four variants and both pretraining modes
#   tables    the paper's main tables (summary.md, pretraining_summary.md)
#   all       the rest of the DAG
# A task's phase runs one Snakemake call a cell (ny 6, 9, 12, 15), so that its cells finish one
# by one rather than its eight trainings all at once (two side by side: the two modes).
# tools/paper_run.sh --targets [phase ...] prints each call's targets instead, one line a call.
# tools/paper_run.sh --first PHASE [phase ...] makes each call build PHASE's targets first
# (Snakemake's --prioritize; repeatable, but every PHASE gets the one priority, so Snakemake
# takes their jobs in turn: name one cell to end it first): the order of the jobs only, never what
# they compute.
# E.g. --first smnist/ny9/pretraining smnist/pretraining ends one cell's two trainings before
# the other cells' instead of all eight near the end.
set -euo pipefail
cd "$(dirname "$0")/.."
# setsid gives the run its own scheduler autogroup, where nice alone orders nothing against
# other sessions' processes: lower the group's priority too, but only when the script leads its
# own session (started by setsid), never the autogroup of the shell or test run that called it
if [ "$(ps -o sid= -p $$ | tr -d ' ')" = "$$" ]; then
    echo 15 > /proc/self/autogroup 2>/dev/null || true
fi

R=results/paper
DIMS="6 9 12 15"

# scores TASKS DIMS VARIANTS: the readout files of those cells
scores() {
    local t n v
    for t in $1; do for n in $2; do for v in $3; do
        printf "%s " "$R/scores/$t/ny$n/$v.json"
    done; done; done
}

# evaluations TASK DIMS: both pretraining modes' evaluations (Table 1's cells)
evaluations() {
    local n m
    for n in $2; do for m in full rob_fixed; do
        printf "%s " "$R/pretrain/$1/ny$n/$m/evaluation.json"
    done; done
}

# cell_targets TASK NY VARIANTS: one cell's scores and, for a pretrained variant, its evaluations
cell_targets() {
    local evals=""
    case "$3" in *pretrained*) evals=$(evaluations "$1" "$2") ;; esac
    echo "$(scores "$1" "$2" "$3") $evals"
}

# known_ny PHASE NY: refuses a cell the paper does not have
known_ny() {
    case " $DIMS " in *" $2 "*) ;; *) echo "unknown cell '$1'; allowed ny: $DIMS" >&2 && return 2 ;; esac
}

# steps PHASE: the phase's Snakemake calls, as "name targets..." lines
steps() {
    local n
    case "$1" in
        baseline) echo "baseline $(scores "adiac lorenz96" "$DIMS" "ron unoptimized")" ;;
        smnist) echo "smnist $(scores smnist "$DIMS" "ron unoptimized")" ;;
        adiac | lorenz96 | mackey_glass) for n in $DIMS; do steps "$1/ny$n"; done ;;
        adiac/pretraining | lorenz96/pretraining | mackey_glass/pretraining | smnist/pretraining)
            echo "$1 $(for n in $DIMS; do evaluations "${1%/pretraining}" "$n"; done)" ;;
        # before the cell pattern below, which matches these names too
        adiac/ny*/pretraining | lorenz96/ny*/pretraining | mackey_glass/ny*/pretraining | smnist/ny*/pretraining)
            n=${1#*/ny} && n=${n%/pretraining} && known_ny "$1" "$n" && echo "$1 $(evaluations "${1%%/*}" "$n")" ;;
        smnist_pretrained)
            for n in $DIMS; do echo "smnist/ny$n $(cell_targets smnist "$n" 'partial pretrained')"; done ;;
        adiac/ny* | lorenz96/ny* | mackey_glass/ny* | smnist/ny*)
            n=${1#*/ny} && known_ny "$1" "$n" && echo "$1 $(cell_targets "${1%/ny*}" "$n" 'ron unoptimized partial pretrained')" ;;
        tables) echo "tables $R/tables/summary.md $R/tables/pretraining_summary.md" ;;
        all) echo "all" ;;
        *)
            echo "unknown phase '$1'; allowed: mackey_glass baseline smnist adiac lorenz96 smnist_pretrained TASK/nyN TASK/pretraining TASK/nyN/pretraining tables all" >&2
            return 2
            ;;
    esac
}

print_only=false
first=()
while [ $# -gt 0 ]; do
    case "$1" in
        --targets) print_only=true; shift ;;
        --first)
            [ $# -ge 2 ] || { echo "--first needs a phase" >&2; exit 2; }
            first_targets=$(steps "$2" | cut -s -d' ' -f2-) || exit 2  # -s: none for 'all'
            # shellcheck disable=SC2206  # the targets are words
            first+=($first_targets) && shift 2 ;;
        *) break ;;
    esac
done
prioritize=()
[ ${#first[@]} -eq 0 ] || prioritize=(--prioritize "${first[@]}" --)
phases=("$@")
[ ${#phases[@]} -gt 0 ] || phases=(mackey_glass baseline adiac lorenz96 smnist smnist_pretrained tables all)
for phase in "${phases[@]}"; do
    calls=$(steps "$phase")
    while read -r name targets; do
        if $print_only; then echo "$name: $targets"; continue; fi
        echo "== $name: start $(date -Is) at $(git rev-parse --short HEAD)"
        # shellcheck disable=SC2086  # the targets are words
        snakemake --cores all --rerun-incomplete --keep-going "${prioritize[@]}" $targets </dev/null  # the calls are on stdin
        echo "== $name: done $(date -Is)"
    done <<< "$calls"
done
