package detached

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"time"
)

// HTTPDataSource resolves a GraphQL field by calling an upstream HTTP API.
type HTTPDataSource struct {
	client  *http.Client
	baseURL string
	header  http.Header
}

// Load posts input to the upstream and copies the response into out.
// From: wundergraph/graphql-go-tools#562
// bug: detachedctx
func (ds *HTTPDataSource) Load(ctx context.Context, input []byte, out io.Writer) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	req, err := http.NewRequest(http.MethodPost, ds.baseURL+"/graphql", bytes.NewReader(input))
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	for k, vs := range ds.header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := ds.client.Do(req)
	if err != nil {
		return fmt.Errorf("upstream: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("upstream status %d", resp.StatusCode)
	}
	if _, err := io.Copy(out, resp.Body); err != nil {
		return fmt.Errorf("read upstream: %w", err)
	}
	return nil
}

// LoadNearMiss builds the upstream request with the resolver's context.
// ok: detachedctx
func (ds *HTTPDataSource) LoadNearMiss(ctx context.Context, input []byte, out io.Writer) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ds.baseURL+"/graphql", bytes.NewReader(input))
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	for k, vs := range ds.header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := ds.client.Do(req)
	if err != nil {
		return fmt.Errorf("upstream: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("upstream status %d", resp.StatusCode)
	}
	if _, err := io.Copy(out, resp.Body); err != nil {
		return fmt.Errorf("read upstream: %w", err)
	}
	return nil
}

// Instance is a compute instance with its network placement.
type Instance struct {
	ID    string   `json:"id"`
	Rack  string   `json:"rack"`
	Spine []string `json:"spine"`
}

// TopologyProvider reads network topology from a cloud metadata API.
type TopologyProvider struct {
	client   *http.Client
	endpoint string
	token    string
}

// Instances lists instances and their placement for a region.
// From: NVIDIA/topograph#150
// bug: detachedctx
func (p *TopologyProvider) Instances(ctx context.Context, region string) ([]Instance, error) {
	url := fmt.Sprintf("%s/v1/regions/%s/instances", p.endpoint, region)
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("list instances in %s: %w", region, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("list instances in %s: status %d: %s", region, resp.StatusCode, body)
	}
	var out struct {
		Items []Instance `json:"items"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("decode instances: %w", err)
	}
	return out.Items, nil
}

// InstancesNearMiss attaches ctx when building the request.
// ok: detachedctx
func (p *TopologyProvider) InstancesNearMiss(ctx context.Context, region string) ([]Instance, error) {
	url := fmt.Sprintf("%s/v1/regions/%s/instances", p.endpoint, region)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("list instances in %s: %w", region, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("list instances in %s: status %d: %s", region, resp.StatusCode, body)
	}
	var out struct {
		Items []Instance `json:"items"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("decode instances: %w", err)
	}
	return out.Items, nil
}

// Applier applies a directory of manifests with kubectl.
type Applier struct {
	kubectl   string
	namespace string
	dryRun    bool
}

// Apply runs kubectl apply for dir and returns its combined output.
// From: utilitywarehouse/kube-applier#308
// bug: detachedctx
func (a *Applier) Apply(ctx context.Context, dir string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	args := []string{"apply", "-R", "-f", dir, "-n", a.namespace}
	if a.dryRun {
		args = append(args, "--dry-run=server")
	}
	cmd := exec.Command(a.kubectl, args...)
	var buf bytes.Buffer
	cmd.Stdout = &buf
	cmd.Stderr = &buf
	if err := cmd.Run(); err != nil {
		return buf.String(), fmt.Errorf("kubectl apply %s: %w", dir, err)
	}
	return buf.String(), nil
}

// ApplyNearMiss ties the kubectl process to ctx.
// ok: detachedctx
func (a *Applier) ApplyNearMiss(ctx context.Context, dir string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	args := []string{"apply", "-R", "-f", dir, "-n", a.namespace}
	if a.dryRun {
		args = append(args, "--dry-run=server")
	}
	cmd := exec.CommandContext(ctx, a.kubectl, args...)
	cmd.WaitDelay = 5 * time.Second
	var buf bytes.Buffer
	cmd.Stdout = &buf
	cmd.Stderr = &buf
	if err := cmd.Run(); err != nil {
		return buf.String(), fmt.Errorf("kubectl apply %s: %w", dir, err)
	}
	return buf.String(), nil
}

// Command is a CLI subcommand with a context set by the root command.
type Command struct {
	Use string
	ctx context.Context
	out io.Writer
}

// Context returns the context the root command was executed with.
// ok: detachedctx
func (c *Command) Context() context.Context {
	if c.ctx == nil {
		return context.Background()
	}
	return c.ctx
}

type repoClient interface {
	ListRepositories(ctx context.Context, provider string) ([]string, error)
	RegisterRepository(ctx context.Context, provider, name string) error
}

// CLI holds the client used by every subcommand.
type CLI struct {
	client repoClient
}

// appContext returns the context used for calls to the control plane.
// ok: detachedctx
func appContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 10*time.Second)
}

// RegisterRepos registers every repository the provider reports.
// From: mindersec/minder#263
// bug: detachedctx
func (c *CLI) RegisterRepos(cmd *Command, provider string) error {
	ctx, cancel := appContext()
	defer cancel()
	repos, err := c.client.ListRepositories(ctx, provider)
	if err != nil {
		return fmt.Errorf("list repositories: %w", err)
	}
	for _, name := range repos {
		if err := c.client.RegisterRepository(ctx, provider, name); err != nil {
			return fmt.Errorf("register %s: %w", name, err)
		}
		fmt.Fprintf(cmd.out, "registered %s\n", name)
	}
	return nil
}

// RegisterReposNearMiss bounds the calls but derives from the command context.
// ok: detachedctx
func (c *CLI) RegisterReposNearMiss(cmd *Command, provider string) error {
	ctx, cancel := context.WithTimeout(cmd.Context(), 10*time.Second)
	defer cancel()
	repos, err := c.client.ListRepositories(ctx, provider)
	if err != nil {
		return fmt.Errorf("list repositories: %w", err)
	}
	for _, name := range repos {
		if err := c.client.RegisterRepository(ctx, provider, name); err != nil {
			return fmt.Errorf("register %s: %w", name, err)
		}
		fmt.Fprintf(cmd.out, "registered %s\n", name)
	}
	return nil
}

type topoClient interface {
	GetCells(ctx context.Context) ([]string, error)
	GetShards(ctx context.Context, cell string) ([]string, error)
}

// ShardLister prints the shards of every cell.
type ShardLister struct {
	topo topoClient
}

// Run implements the "list-shards" subcommand.
// From: multigres/multigres#292
// bug: detachedctx
func (l *ShardLister) Run(cmd *Command, args []string) error {
	ctx := context.Background()
	cells := args
	if len(cells) == 0 {
		var err error
		if cells, err = l.topo.GetCells(ctx); err != nil {
			return fmt.Errorf("get cells: %w", err)
		}
	}
	for _, cell := range cells {
		shards, err := l.topo.GetShards(ctx, cell)
		if err != nil {
			return fmt.Errorf("get shards for %s: %w", cell, err)
		}
		fmt.Fprintf(cmd.out, "%s: %s\n", cell, strings.Join(shards, ", "))
	}
	return nil
}

// RunNearMiss uses the command's context.
// ok: detachedctx
func (l *ShardLister) RunNearMiss(cmd *Command, args []string) error {
	ctx := cmd.Context()
	cells := args
	if len(cells) == 0 {
		var err error
		if cells, err = l.topo.GetCells(ctx); err != nil {
			return fmt.Errorf("get cells: %w", err)
		}
	}
	for _, cell := range cells {
		shards, err := l.topo.GetShards(ctx, cell)
		if err != nil {
			return fmt.Errorf("get shards for %s: %w", cell, err)
		}
		fmt.Fprintf(cmd.out, "%s: %s\n", cell, strings.Join(shards, ", "))
	}
	return nil
}

// FetchVersion asks a build server for its version string; it is called
// once at process start-up, before any caller context exists.
// ok: detachedctx
func FetchVersion(client *http.Client, url string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("version: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 256))
	if err != nil {
		return "", fmt.Errorf("version: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}
