package main

import "testing"

func TestTrainingReducesTheLoss(t *testing.T) {
	losses, err := train(300, 512, 1)
	if err != nil {
		t.Fatal(err)
	}
	first, last := losses[0], losses[len(losses)-1]
	// The target's variance is about 0.6; a trained 4-32-32-1 MLP fits it to a few thousandths.
	if !(last < first/50) || !(last < 0.02) {
		t.Errorf("loss went from %g to %g after %d Adam steps, want below %g and 0.02", first, last, len(losses), first/50)
	}
	for i := 50; i < len(losses); i += 50 {
		if !(losses[i] < losses[i-50]) {
			t.Errorf("loss at step %d is %g, not below %g 50 steps before", i+1, losses[i], losses[i-50])
		}
	}
}
