module github.com/schedmodel/fairclass

go 1.26

require (
	github.com/google/btree v1.1.3
	github.com/google/go-cmp v0.7.0
)
