//go:build !fpcheck_nogcs

package objstore

import _ "gocloud.dev/blob/gcsblob" // gs://

func init() { compiled["gs"] = true }
