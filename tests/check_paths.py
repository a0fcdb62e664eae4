#!/usr/bin/env python3
# check_paths.py FOLDED: folded stacks of tests/call_paths hold its five
# paths to leaf_work as written, each with a fifth of the samples
# (10-30%), and nothing else more than 2%.
import sys

want = {
    'main;via_one;leaf_work',
    'main;via_two;via_three;leaf_work',
    'main;' + 'recurse;' * 6 + 'leaf_work',
    'main;twin_left;leaf_work',
    'main;twin_right;leaf_work',
}
counts = {}
for line in open(sys.argv[1]):
    stack, n = line.rsplit(' ', 1)
    frames = stack.split(';')
    # From main down; what the kernel adds at the leaf (interrupts) is the leaf's.
    if 'main' not in frames:
        key = stack
    else:
        frames = frames[frames.index('main'):]
        if 'leaf_work' in frames:
            frames = frames[:frames.index('leaf_work') + 1]
        key = ';'.join(frames)
    counts[key] = counts.get(key, 0) + int(n)
total = sum(counts.values())
assert total > 0, 'no samples'
for w in want:
    share = counts.get(w, 0) / total
    assert 0.10 <= share <= 0.30, (w, share)
for k, n in counts.items():
    assert k in want or n / total <= 0.02, (k, n / total)
