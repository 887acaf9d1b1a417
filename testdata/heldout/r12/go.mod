module heldoutr12

go 1.26
