module heldoutr5b

go 1.26

require golang.org/x/sync v0.0.0-00010101000000-000000000000

replace golang.org/x/sync => ./third_party/golang.org/x/sync
