module github.com/tensorflux/tensorflux/bindings-go

go 1.23
