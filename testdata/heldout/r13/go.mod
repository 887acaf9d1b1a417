module heldoutr13

go 1.26
