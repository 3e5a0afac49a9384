// The object storage tests talk to an in-process S3 through the real S3
// driver, so a build without it (-tags fpcheck_nos3) has none to run;
// internal/objstore tests what such a build refuses.

//go:build !fpcheck_nos3

package main

import (
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/rogpeppe/go-internal/testscript"
)

// fakeS3 serves an in-memory S3 on the loopback for the real S3 driver to
// talk to: nothing leaves 127.0.0.1.
type fakeS3 struct {
	backend *s3mem.Backend
	srv     *httptest.Server
}

func startFakeS3(t testing.TB) *fakeS3 {
	t.Helper()
	backend := s3mem.New()
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	return &fakeS3{backend: backend, srv: srv}
}

// query is what an s3:// URL needs to reach the fake server.
func (f *fakeS3) query() string {
	return "endpoint=" + f.srv.URL + "&use_path_style=true&disable_https=true&region=us-east-1"
}

func (f *fakeS3) put(t testing.TB, bucket, key string, data []byte) {
	t.Helper()
	if err := f.store(bucket, key, data); err != nil {
		t.Fatal(err)
	}
}

func (f *fakeS3) store(bucket, key string, data []byte) error {
	if err := f.backend.CreateBucket(bucket); err != nil && !gofakes3.IsAlreadyExists(err) {
		return err
	}
	_, err := f.backend.PutObject(bucket, key, map[string]string{}, bytes.NewReader(data), int64(len(data)), nil)
	return err
}

// s3Env points the AWS SDK at static test credentials and away from every
// file and metadata service it would otherwise consult.
func s3Env(dir string) map[string]string {
	return map[string]string{
		"AWS_ACCESS_KEY_ID":           "fpcheck-test",
		"AWS_SECRET_ACCESS_KEY":       "fpcheck-test-secret",
		"AWS_REGION":                  "us-east-1",
		"AWS_EC2_METADATA_DISABLED":   "true",
		"AWS_CONFIG_FILE":             filepath.Join(dir, "no-aws-config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "no-aws-credentials"),
	}
}

// The same inputs read from an S3 bucket through the real driver, from a
// file:// bucket and from a directory give the same report.
func TestObjectStorageReadsAsFiles(t *testing.T) {
	dir := t.TempDir()
	for k, v := range s3Env(dir) {
		t.Setenv(k, v)
	}
	s3 := startFakeS3(t)
	local := stageBucketInputs(t, dir, func(key string, data []byte) { s3.put(t, "recordings", key, data) })
	checkBucketReadsAsFiles(t, local, func(key string) string { return "s3://recordings/" + key + "?" + s3.query() })
	t.Run("file", func(t *testing.T) {
		checkSameReports(t, local, "file://"+filepath.ToSlash(local), "file://"+filepath.ToSlash(local))
	})
}

// Shards read from a bucket and merged give the directory's report, and
// saved reports in a bucket are inputs too.
func TestObjectStorageShardsAndSavedReports(t *testing.T) {
	dir := t.TempDir()
	for k, v := range s3Env(dir) {
		t.Setenv(k, v)
	}
	s3 := startFakeS3(t)
	corpus := corpusPath(t)
	var files []string
	err := filepath.WalkDir(corpus, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(corpus, p)
		s3.put(t, "corpus", filepath.ToSlash(rel), data)
	}
	url := "s3://corpus?" + s3.query()
	wantCode, want, _ := run(t, nil, "analyze", "--format", "json", url)
	var shards []string
	for i := range 3 {
		_, js, _ := run(t, nil, "analyze", "--shard", itoa(i)+"/3", "--format", "json", url)
		s3.put(t, "reports", "shard-"+itoa(i)+".json", []byte(js))
		shards = append(shards, js)
	}
	code, got, stderr := run(t, nil, "merge", "--format", "json", "s3://reports?"+s3.query())
	if code != wantCode {
		t.Errorf("merge of the shards in a bucket: exit %d, want %d (%s)", code, wantCode, stderr)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged shards from a bucket differ from one invocation (-want +got):\n%s", diff)
	}
	if len(shards) != 3 {
		t.Fatal("shards not written")
	}
}

// TestObjectStorageScripts runs testdata/objstore/*.txtar against a fake S3
// started per script: `s3put BUCKET KEY FILE` uploads a file, and $S3Q is
// the query an s3:// URL needs to reach the server.
func TestObjectStorageScripts(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	servers := map[string]*fakeS3{}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/objstore",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			backend := s3mem.New()
			srv := httptest.NewServer(gofakes3.New(backend).Server())
			env.Defer(srv.Close)
			s3 := &fakeS3{backend: backend, srv: srv}
			servers[env.WorkDir] = s3
			for k, v := range s3Env(env.WorkDir) {
				env.Setenv(k, v)
			}
			env.Setenv("S3Q", s3.query())
			env.Setenv("REPO", repo)
			env.Setenv("NO_COLOR", "")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"s3put": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 3 {
					ts.Fatalf("usage: s3put BUCKET KEY FILE")
				}
				data, err := os.ReadFile(ts.MkAbs(args[2]))
				ts.Check(err)
				ts.Check(servers[ts.Getenv("WORK")].store(args[0], args[1], data))
			},
		},
	})
}

// A decompression bomb in a bucket stops at --max-decompressed-bytes as a
// file does, named by its URL, and costs only itself: the recordings beside
// it are still judged. The bombs are generated here, a few hundred
// kilobytes each that would decompress to 256 MiB.
func TestObjectStorageDecompressionBomb(t *testing.T) {
	dir := t.TempDir()
	for k, v := range s3Env(dir) {
		t.Setenv(k, v)
	}
	s3 := startFakeS3(t)
	for key, src := range map[string]string{"ok.jsonl": "../../testdata/recordings/formats/clean.jsonl", "defect.jsonl": "../../testdata/recordings/formats/defect.jsonl"} {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		s3.put(t, "recordings", "bombs/"+key, data)
	}
	for _, tc := range []struct{ codec, key string }{{"zstd", "bombs/bomb.jsonl.zst"}, {"gzip", "bombs/bomb.jsonl.gz"}} {
		p := filepath.Join(dir, filepath.Base(tc.key))
		writeBomb(t, p, tc.codec, 4)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s3.put(t, "recordings", tc.key, data)
	}
	for _, tc := range []struct {
		name, url string
		code      int
		want      []string
	}{
		{"a prefix with two bombs", "s3://recordings/bombs/?" + s3.query(), int(ExitUsage), []string{
			"s3://recordings/bombs/bomb.jsonl.zst: decompresses to more than 16 MiB (limit set by --max-decompressed-bytes)",
			"s3://recordings/bombs/bomb.jsonl.gz: decompresses to more than 16 MiB (limit set by --max-decompressed-bytes)",
			"RUN run-1796025700000-1 · s3://recordings/bombs/ok.jsonl",
			"RUN run-1796025700000-1 · s3://recordings/bombs/defect.jsonl",
			"'screen_fire' is offered while the results grounding its arguments (whats_here) have left the window.",
		}},
		{"one bomb named itself", "s3://recordings/bombs/bomb.jsonl.zst?" + s3.query(), int(ExitUsage), []string{
			"s3://recordings/bombs/bomb.jsonl.zst: decompresses to more than 16 MiB (limit set by --max-decompressed-bytes)",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := run(t, nil, "analyze", "--color=never", "--max-decompressed-bytes", "16777216", tc.url)
			if code != tc.code {
				t.Errorf("exit %d, want %d (%s)", code, tc.code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("the report lacks %q:\n%s", w, head(out))
				}
			}
			// The machine formats name the object by its URL too.
			_, js, _ := run(t, nil, "analyze", "--format", "json", "--max-decompressed-bytes", "16777216", tc.url)
			if !strings.Contains(js, `decompresses to more than 16 MiB (limit set by --max-decompressed-bytes)`) || !strings.Contains(js, `"path": "s3://recordings/bombs/bomb.jsonl.zst"`) {
				t.Errorf("JSON does not name the bomb by its URL:\n%s", head(js))
			}
		})
	}
}

// The S3 SDK logs to the process's stderr by default, once per object from
// a store that sends no checksum, as the in-process server does: nothing
// but fpcheck's own report and summary may reach the job log.
func TestObjectStorageLeavesStderrToFpcheck(t *testing.T) {
	dir := t.TempDir()
	for k, v := range s3Env(dir) {
		t.Setenv(k, v)
	}
	s3 := startFakeS3(t)
	data, err := os.ReadFile("../../testdata/recordings/formats/defect.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s3.put(t, "recordings", "runs/defect.jsonl", data)
	s3.put(t, "recordings", "runs/again.jsonl", data)
	stray, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = stray
	code, _, _ := run(t, nil, "analyze", "--format", "json", "s3://recordings/runs/?"+s3.query())
	os.Stderr = saved
	if err := stray.Close(); err != nil {
		t.Fatal(err)
	}
	if code != int(ExitDefects) {
		t.Errorf("exit %d, want %d", code, ExitDefects)
	}
	if got, _ := os.ReadFile(stray.Name()); len(got) > 0 {
		t.Errorf("something other than fpcheck wrote to stderr:\n%s", got)
	}
	// The driver's parameters are read as s3blob reads them.
	code, _, stderr := run(t, nil, "analyze", "s3://recordings/runs/?use_path_style=maybe&"+s3.query())
	if code != int(ExitUsage) || !strings.Contains(stderr, `s3://recordings/runs/: invalid value for "use_path_style"`) {
		t.Errorf("a bad parameter: exit %d, %q", code, stderr)
	}
}
