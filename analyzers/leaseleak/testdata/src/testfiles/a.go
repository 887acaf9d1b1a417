package testfiles
