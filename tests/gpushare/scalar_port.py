"""A line-by-line scalar port of the FGD simulator's frag.go / fgd_score.go, used as the oracle
for the vectorised rules (tests only)."""

from __future__ import annotations

import math


def can_host(left, milli, count):
    need = count
    for v in left:
        if v >= milli:
            need -= 1
            if need <= 0:
                return True
    return False


def node_frag(cpu_left, left, model, typical):
    from kubesched.replay.openb import accessible

    total = sum(left)
    out = 0.0
    for t in typical:
        if t.milli == 0:
            out += t.freq * total  # XL / XR
            continue
        if not accessible(model, t.spec):
            out += t.freq * total
            continue
        if can_host(left, t.milli, t.count):
            if cpu_left >= t.cpu:
                out += t.freq * sum(v for v in left if v < t.milli)  # Q3: the part too small
            else:
                out += t.freq * total  # Q4
        else:
            out += t.freq * total  # Q1 / Q2
    return out


def sub(cpu_left, left, cpu, milli, count):
    out = list(left)
    cpu_left -= cpu
    if count == 0:
        return cpu_left, out
    order = sorted(range(len(out)), key=lambda i: out[i])
    need = count
    for i in order:
        if milli <= out[i]:
            need -= 1
            out[i] -= milli
            if need <= 0:
                break
    return cpu_left, out


def sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


def fgd_score(cpu_left, left, model, typical, cpu, milli, count):
    """calculateGpuShareFragExtendScore: (score, gpu index for a sharing pod)."""
    before = node_frag(cpu_left, left, model, typical)
    if count == 1 and milli < 1000:
        score, gpu = 0, None
        for i in range(len(left)):
            if left[i] >= milli:
                new = list(left)
                new[i] -= milli
                s = int(sigmoid((before - node_frag(cpu_left - cpu, new, model, typical)) / 1000) * 100)
                if gpu is None or s > score:
                    score, gpu = s, i
        return score, gpu
    c2, l2 = sub(cpu_left, left, cpu, milli, count)
    return int(sigmoid((before - node_frag(c2, l2, model, typical)) / 1000) * 100), None
