package objstore

// Each cloud driver lives in a file of its own behind a build tag, so that
// a build that reads one cloud need not carry the others' SDKs: of the
// default build's 51 MB, the Azure SDK takes about 13 MB and the AWS SDK
// about 12. gs:// takes under 1 MB, being read by a driver of fpcheck's
// own over the Cloud Storage JSON API (driver_gcs.go) rather than through
// Google's storage client. The default build carries every driver;
//
//	go build -tags fpcheck_nogcs,fpcheck_noazure ./cmd/fpcheck
//
// reads s3:// and file:// only. A URL of a driver left out is refused by
// name (see Store.bucket), never taken for a local path.
