module github.com/tierkit/tierkit/bench

go 1.26.0

replace github.com/tierkit/tierkit => ../

require (
	github.com/Yiling-J/theine-go v0.6.3
	github.com/buraksezer/consistent v0.10.0
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/dgraph-io/badger/v4 v4.9.6
	github.com/dgraph-io/ristretto/v2 v2.4.2
	github.com/dgryski/go-jump v0.0.0-20170409065014-e1f439676b57
	github.com/dgryski/go-maglev v0.0.0-20200611225407-8961b9b1b8e6
	github.com/dgryski/go-rendezvous v0.0.0-20200823014737-9f7001d12a5f
	github.com/golang/groupcache v0.0.0-20241129210726-2c02b8208cf8
	github.com/graph-gophers/dataloader/v7 v7.1.0
	github.com/hashicorp/golang-lru/arc/v2 v2.0.7
	github.com/hashicorp/golang-lru/v2 v2.0.7
	github.com/lafikl/consistent v0.0.0-20220512074542-bdd3606bfc3e
	github.com/maypok86/otter/v2 v2.4.0
	github.com/platinummonkey/go-concurrency-limits v0.8.0
	github.com/serialx/hashring v0.0.0-20200727003509-22c0c7ab6b1b
	github.com/stretchr/testify v1.12.1
	github.com/tierkit/tierkit v0.0.0-00010101000000-000000000000
	github.com/vikstrous/dataloadgen v0.0.10
	golang.org/x/sync v0.25.0
	golang.org/x/time v0.16.0
	google.golang.org/api v0.315.0
	resenje.org/singleflight v0.4.3
	stathat.com/c/consistent v1.0.0
)

require (
	github.com/dchest/siphash v1.2.3 // indirect
	github.com/dustin/go-humanize v1.0.1 // indirect
	github.com/go-logr/logr v1.4.4 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/google/flatbuffers v25.2.10+incompatible // indirect
	github.com/klauspost/compress v1.18.0 // indirect
	github.com/klauspost/cpuid/v2 v2.0.9 // indirect
	github.com/minio/blake2b-simd v0.0.0-20160723061019-3f5f724cb5b1 // indirect
	github.com/zeebo/xxh3 v1.0.2 // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/otel v1.47.0 // indirect
	go.opentelemetry.io/otel/log v1.47.0 // indirect
	go.opentelemetry.io/otel/metric v1.47.0 // indirect
	go.opentelemetry.io/otel/trace v1.47.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.49.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
