module example.com/xf

go 1.22
