#!/usr/bin/env bash
# Runs the paper-scale DAG (config.yaml) on one machine in phases, each a Snakemake call with
# --rerun-incomplete, so that an interrupted run resumes where it stopped and the cells that
# say most come first. Run it detached, at a low priority, from a checkout with the project
# installed:
#   (nohup setsid nice -n 15 bash tools/paper_run.sh > paper_run.log 2>&1 &)
# Phases (default: all, in this order; name some to run only those):
#   mg6       Mackey-Glass ny 6, every variant and both pretraining modes: the cheapest cell
#             that has all of Table 1's and Table 2's columns (~2 h on 2 cores)
#   mackey_glass
#             the rest of Mackey-Glass: every cell and both pretraining modes (its rollouts
#             are the cheapest: a task's whole rows of Tables 1 and 2 within ~6 h on 2 cores)
#   baseline  the RON and unoptimized cells of ADIAC and Lorenz96
#   smnist    sMNIST's RON and unoptimized cells (hours of rollouts no pretraining changes)
#   adiac lorenz96
#             every cell of that task and both pretraining modes
#   smnist_pretrained
#             sMNIST's pretraining and its pretrained and partial cells
#   tables    the paper's main tables (summary.md, pretraining_summary.md)
#   all       the rest of the DAG
# tools/paper_run.sh --targets [phase ...] prints each phase's targets instead, one line a phase.
set -euo pipefail
cd "$(dirname "$0")/.."
# setsid gives the run its own scheduler autogroup, where nice alone orders nothing against
# other sessions' processes: lower the group's priority too
echo 15 > /proc/self/autogroup 2>/dev/null || true

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

phase_targets() {
    case "$1" in
        mg6) echo "$(scores mackey_glass 6 'ron unoptimized partial pretrained') $(evaluations mackey_glass 6)" ;;
        baseline) scores "adiac lorenz96" "$DIMS" "ron unoptimized" ;;
        smnist) scores smnist "$DIMS" "ron unoptimized" ;;
        adiac | lorenz96 | mackey_glass) echo "$(scores "$1" "$DIMS" 'ron unoptimized partial pretrained') $(evaluations "$1" "$DIMS")" ;;
        smnist_pretrained) echo "$(scores smnist "$DIMS" 'partial pretrained') $(evaluations smnist "$DIMS")" ;;
        tables) echo "$R/tables/summary.md $R/tables/pretraining_summary.md" ;;
        all) echo "" ;;
        *)
            echo "unknown phase '$1'; allowed: mg6 mackey_glass baseline smnist adiac lorenz96 smnist_pretrained tables all" >&2
            return 2
            ;;
    esac
}

print_only=false
if [ "${1:-}" = --targets ]; then print_only=true; shift; fi
phases=("$@")
[ ${#phases[@]} -gt 0 ] || phases=(mg6 mackey_glass baseline smnist adiac lorenz96 smnist_pretrained tables all)
for phase in "${phases[@]}"; do
    targets=$(phase_targets "$phase")
    if $print_only; then echo "$phase: $targets"; continue; fi
    echo "== phase $phase: start $(date -Is) at $(git rev-parse --short HEAD)"
    # shellcheck disable=SC2086  # the targets are words
    snakemake --cores all --rerun-incomplete --keep-going $targets
    echo "== phase $phase: done $(date -Is)"
done
