#!/usr/bin/env python3
"""maze_calibration.py: re-measures issue 15's Python calibration of maze6 (docs/learned.md).

RandDFS on perfect 6x6 mazes (recursive backtracker, random start, T = 36, outer boundary known)
in bump mode, three ways: as prowl's env runs it (no coordinates: a wall is known only from the
side it was bumped from, and a move into a visited cell is only known to be one once taken), with
a wall known from both sides, and with coordinates (also: no move into a visited cell). Vision
mode and random walks for reference. Prints one line per variant with the mean coverage.

usage: python3 bench/maze_calibration.py [--mazes N] [--seed S]
"""
import argparse
import random

DIRS = [(0, -1), (1, 0), (0, 1), (-1, 0)]
SIZE = 6
BUDGET = 36


def neighbours(cell):
    for d, (dx, dy) in enumerate(DIRS):
        n = (cell[0] + dx, cell[1] + dy)
        if 0 <= n[0] < SIZE and 0 <= n[1] < SIZE:
            yield d, n


def draw_maze(rng):
    """The open passages of a perfect maze, depth first from a random cell."""
    passages = set()
    first = (rng.randrange(SIZE), rng.randrange(SIZE))
    seen, stack = {first}, [first]
    while stack:
        cell = stack[-1]
        fresh = [n for _, n in neighbours(cell) if n not in seen]
        if not fresh:
            stack.pop()
            continue
        n = rng.choice(fresh)
        passages.add(frozenset((cell, n)))
        seen.add(n)
        stack.append(n)
    return passages


def randdfs(rng, passages, start, mode, far_side=False, coordinates=False):
    """Coverage of one RandDFS walk: a random untried move, else a step back to the parent."""
    cur, visited, parent = start, {start}, {start: None}
    tried, walls, steps = set(), set(), 0
    while steps < BUDGET and len(visited) < SIZE * SIZE:
        moves = []
        for d, n in neighbours(cur):
            edge = frozenset((cur, n))
            if mode == "vision" and edge not in passages:
                continue
            if (cur, d) in tried or (far_side and edge in walls):
                continue
            if n == parent[cur] or (coordinates and n in visited):
                continue
            moves.append((d, n))
        if moves:
            d, n = rng.choice(moves)
            tried.add((cur, d))
            steps += 1
            if frozenset((cur, n)) in passages:
                if n not in visited:
                    visited.add(n)
                    parent[n] = cur
                cur = n
            else:
                walls.add(frozenset((cur, n)))
        elif parent[cur] is None:
            break
        else:
            cur = parent[cur]
            steps += 1
    return len(visited) / (SIZE * SIZE)


def random_walk(rng, passages, start, mode):
    """Coverage of a uniform walk over the moves offered (bump: not the walls bumped here)."""
    cur, visited, bumped = start, {start}, set()
    for _ in range(BUDGET):
        moves = [n for _, n in neighbours(cur)
                 if frozenset((cur, n)) in passages or (mode == "bump" and (cur, n) not in bumped)]
        n = rng.choice(moves)
        if frozenset((cur, n)) in passages:
            cur = n
            visited.add(cur)
        else:
            bumped.add((cur, n))
    return len(visited) / (SIZE * SIZE)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mazes", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    variants = [
        ("vision random", lambda r, p, s: random_walk(r, p, s, "vision")),
        ("vision randdfs", lambda r, p, s: randdfs(r, p, s, "vision")),
        ("bump random", lambda r, p, s: random_walk(r, p, s, "bump")),
        ("bump randdfs, as prowl's env (no coordinates)", lambda r, p, s: randdfs(r, p, s, "bump")),
        ("bump randdfs, a wall known from both sides",
         lambda r, p, s: randdfs(r, p, s, "bump", far_side=True)),
        ("bump randdfs, with coordinates (walls both sides, no move into a visited cell)",
         lambda r, p, s: randdfs(r, p, s, "bump", far_side=True, coordinates=True)),
    ]
    for name, run in variants:
        rng = random.Random(args.seed)
        total = 0.0
        for _ in range(args.mazes):
            passages = draw_maze(rng)
            start = (rng.randrange(SIZE), rng.randrange(SIZE))
            total += run(rng, passages, start)
        print(f"CALIBRATION {name}: coverage={total / args.mazes:.3f} mazes={args.mazes}")


if __name__ == "__main__":
    main()
