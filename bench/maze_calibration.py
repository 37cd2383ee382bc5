#!/usr/bin/env python3
"""maze_calibration.py: re-measures issue 15's Python calibration of maze6 (docs/learned.md).

RandDFS on perfect 6x6 mazes (recursive backtracker, random start, T = 36, outer boundary known)
in bump mode, three ways: as prowl's env runs it (no coordinates: a wall is known only from the
side it was bumped from, and a move into a visited cell is only known to be one once taken), with
a wall known from both sides, and with coordinates (also: no move into a visited cell). Vision
mode and random walks for reference; in vision also depth first in a fixed order, in the best
order for the maze (known), and the best walk of all (the offline optimum): the ceilings of what
an online explorer can gain over randdfs. Prints one line per variant with the mean coverage.

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


def randdfs(rng, passages, start, mode, far_side=False, coordinates=False, choose=None):
    """Coverage of one RandDFS walk: a random untried move (or the one `choose` picks of the
    untried moves, in the order north, east, south, west), else a step back to the parent."""
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
            d, n = (choose or rng.choice)(moves)
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


def tree_below(passages, start):
    """The maze as a tree from the start: each cell's children and each subtree's size."""
    children, order, stack = {}, [], [(start, None)]
    while stack:
        cell, parent = stack.pop()
        order.append(cell)
        children[cell] = [n for _, n in neighbours(cell)
                          if n != parent and frozenset((cell, n)) in passages]
        stack.extend((c, cell) for c in children[cell])
    size = {}
    for cell in reversed(order):
        size[cell] = 1 + sum(size[c] for c in children[cell])
    return children, size


def best_dfs_order(passages, start):
    """The most any depth-first walk covers in T steps, the maze known: at each cell some subtrees
    explored whole first (2 steps a cell), then one entered for good. The ceiling of every order
    in which a depth-first explorer can take the moves."""
    children, size = tree_below(passages, start)
    memo = {}

    def below(cell, budget):
        key = (cell, budget)
        if key not in memo:
            kids, best = children[cell], 0
            for mask in range(1 << len(kids)):
                whole = [k for i, k in enumerate(kids) if mask >> i & 1]
                cost = sum(2 * size[k] for k in whole)
                if cost > budget:
                    continue
                gain = sum(size[k] for k in whole)
                best = max(best, gain)
                for k in kids:
                    if k not in whole and budget - cost >= 1:
                        best = max(best, gain + 1 + below(k, budget - cost - 1))
            memo[key] = best
        return memo[key]

    return (1 + below(start, BUDGET)) / (SIZE * SIZE)


def best_walk(passages, start):
    """The most any walk covers in T steps, the maze known (the offline optimum): subtrees entered
    and left again (2 steps a cell, any part of them), then one entered for good."""
    children, _ = tree_below(passages, start)
    back, end = {}, {}

    def knapsack(kids, budget):
        """best[b]: cells covered below, returning, in b steps, over the subtrees of kids."""
        best = [0] * (budget + 1)
        for kid in kids:
            new = best[:]
            for used in range(budget + 1):
                for given in range(2, budget - used + 1):
                    new[used + given] = max(new[used + given],
                                            best[used] + 1 + returning(kid, given - 2))
            best = [max(new[:i + 1]) for i in range(budget + 1)]
        return best

    def returning(cell, budget):
        if (cell, budget) not in back:
            back[(cell, budget)] = knapsack(children[cell], budget)[budget]
        return back[(cell, budget)]

    def ending(cell, budget):
        if (cell, budget) not in end:
            best = returning(cell, budget)
            for last in children[cell]:
                others = knapsack([k for k in children[cell] if k != last], budget)
                for used in range(budget):
                    best = max(best, others[used] + 1 + ending(last, budget - used - 1))
            end[(cell, budget)] = best
        return end[(cell, budget)]

    return (1 + ending(start, BUDGET)) / (SIZE * SIZE)


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
        ("vision depth first, a fixed order (north, east, south, west)",
         lambda r, p, s: randdfs(r, p, s, "vision", choose=lambda moves: moves[0])),
        ("vision depth first, the best order (the maze known)", lambda r, p, s: best_dfs_order(p, s)),
        ("vision, the best walk (the maze known)", lambda r, p, s: best_walk(p, s)),
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
