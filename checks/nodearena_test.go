package checks

import "testing"

// TestBlocksTake: what take hands out never overlaps what it handed out
// before, stays where it is as blocks are added, and is zero, after a
// reset too.
func TestBlocksTake(t *testing.T) {
	var b blocks[int]
	for round := 0; round < 3; round++ {
		var taken [][]int
		for _, n := range []int{1, 3, firstBlock, 1, 2 * firstBlock, 5, 7 * firstBlock, 1} {
			s := b.take(n)
			if len(s) != n || cap(s) != n {
				t.Fatalf("round %d: take(%d) gave len %d cap %d", round, n, len(s), cap(s))
			}
			for i, v := range s {
				if v != 0 {
					t.Fatalf("round %d: take(%d)[%d] = %d, want a zero value", round, n, i, v)
				}
				s[i] = len(taken) + 1
			}
			taken = append(taken, s)
		}
		for k, s := range taken {
			for i, v := range s {
				if v != k+1 {
					t.Fatalf("round %d: run %d [%d] = %d: overwritten by a later take", round, k, i, v)
				}
			}
		}
		b.reset()
	}
}

// TestArenaRelease: an arena that grew past maxArenaNodes is not kept.
func TestArenaRelease(t *testing.T) {
	a := borrowArena()
	a.nodes.take(maxArenaNodes + 1)
	a.release()
	if n := a.nodes.size(); n <= maxArenaNodes {
		t.Fatalf("a released arena too large to keep was emptied (%d nodes left)", n)
	}
	b := borrowArena()
	defer b.release()
	if b == a {
		t.Fatal("an arena too large to keep was handed out again")
	}
}
