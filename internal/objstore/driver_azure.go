//go:build !fpcheck_noazure

package objstore

import _ "gocloud.dev/blob/azureblob" // azblob://

func init() { compiled["azblob"] = true }
