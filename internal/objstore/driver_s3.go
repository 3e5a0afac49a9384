//go:build !fpcheck_nos3

package objstore

import _ "gocloud.dev/blob/s3blob" // s3://

func init() { compiled["s3"] = true }
