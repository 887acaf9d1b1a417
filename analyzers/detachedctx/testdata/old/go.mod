module old

go 1.20
