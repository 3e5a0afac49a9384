package objstore

// Each cloud driver lives in a file of its own behind a build tag, so that
// a build that reads one cloud need not carry the others: the Google Cloud
// Storage client alone brings gRPC and OpenTelemetry, about 30 MB of an
// 80 MB binary. The default build carries every driver;
//
//	go build -tags fpcheck_nogcs,fpcheck_noazure ./cmd/fpcheck
//
// reads s3:// and file:// only. A URL of a driver left out is refused by
// name (see Store.bucket), never taken for a local path.
