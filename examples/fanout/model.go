package main

import (
	"errors"
	"fmt"
	"math"
)

// Fleet is the input of the model: the sizes of the fleets and the assumptions about
// how clients, proxies and database hosts connect. Every field is a flag of the command.
type Fleet struct {
	Regions        int     // regions, each with its own gateway tier
	DBHosts        int     // database hosts (all regions)
	Proxies        int     // gateway hosts (all regions, spread evenly)
	Clients        int     // client hosts
	ShardsPerCli   int     // distinct shard replicas one client touches under direct access
	ShardDensity   float64 // shard replicas per database host that one region's tier routes to
	ClientPool     int     // sticky connections one client keeps to its regional tier
	BackendPool    int     // connections one proxy keeps per database host it talks to
	AnyProxyRoutes bool    // true: any proxy sends any shard (no shard affinity in the tier)
}

// Direct is the direct-access side of the model.
type Direct struct {
	ClientFanOut float64 // distinct database hosts one client connects to
	HitProb      float64 // probability that a given database host is among them
	DBFanIn      float64 // clients connected to one database host
	Total        float64 // persistent connections, all clients
}

// Gateway is the gateway side of the model.
type Gateway struct {
	ClientFanOut  float64 // connections one client keeps (its sticky pool)
	ProxyFanIn    float64 // client connections one proxy accepts
	ProxyFanOut   float64 // database connections one proxy keeps
	DBFanIn       float64 // proxy connections one database host accepts
	ClientSide    float64 // client-to-proxy connections, all clients
	BackendSide   float64 // proxy-to-database connections, all proxies
	Total         float64 // ClientSide + BackendSide
	ProxiesRegion float64 // proxies in one region's tier
}

// errFleet reports an input the model cannot use.
var errFleet = errors.New("fanout: invalid fleet")

// maxClients bounds Fleet.Clients so that the growth table's 10x row fits an int.
const maxClients = math.MaxInt / 10

func (f Fleet) validate() error {
	switch {
	case f.Regions < 1, f.DBHosts < 1, f.Proxies < f.Regions, f.Clients < 1, f.ShardsPerCli < 1:
		return fmt.Errorf("%w: regions, db hosts, clients and shards per client must be >= 1 and proxies >= regions", errFleet)
	case f.ShardDensity <= 0 || math.IsNaN(f.ShardDensity) || math.IsInf(f.ShardDensity, 0):
		return fmt.Errorf("%w: shard density must be a positive number", errFleet)
	case f.ClientPool < 1, f.BackendPool < 1:
		return fmt.Errorf("%w: pool sizes must be >= 1", errFleet)
	case f.Clients > maxClients:
		// the growth table multiplies it by up to 10
		return fmt.Errorf("%w: at most %d clients", errFleet, maxClients)
	}
	return nil
}

// distinct is the balls-into-bins expectation: throwing b balls uniformly into h bins
// fills h(1-(1-1/h)^b) distinct bins on average. It is computed as -h*expm1(b*log1p(-1/h))
// so that it stays exact when 1/h is tiny and b is large.
func distinct(h, b float64) float64 {
	if h <= 1 {
		return math.Min(h, b)
	}
	return -h * math.Expm1(b*math.Log1p(-1/h))
}

// direct computes the direct-access mesh: every client connects to every database host
// holding a shard it touches.
func direct(f Fleet) Direct {
	h, b := float64(f.DBHosts), float64(f.ShardsPerCli)
	fan := distinct(h, b)
	return Direct{
		ClientFanOut: fan,
		HitProb:      fan / h,
		DBFanIn:      float64(f.Clients) * fan / h,
		Total:        float64(f.Clients) * fan,
	}
}

// gateway computes the two-hop mesh. Clients keep ClientPool sticky connections to
// their regional tier. On the backend side, each region's tier reaches every database
// host it routes to; with shard affinity (the tier's consistent hashing gives each
// shard replica one owner per region) the ShardDensity replicas on a host are owned by
// distinct(proxiesPerRegion, ShardDensity) proxies of each region, so a host's fan-in is
// Regions x that: it depends on regions and shard density, not on the client count.
// Without affinity every proxy of a region may send to every host, so the fan-in is
// Regions x proxiesPerRegion.
func gateway(f Fleet) Gateway {
	perRegion := float64(f.Proxies) / float64(f.Regions)
	owners := distinct(perRegion, f.ShardDensity)
	if f.AnyProxyRoutes {
		owners = perRegion
	}
	dbFanIn := float64(f.Regions) * owners * float64(f.BackendPool)
	backend := dbFanIn * float64(f.DBHosts)
	clientSide := float64(f.Clients) * float64(f.ClientPool)
	return Gateway{
		ClientFanOut:  float64(f.ClientPool),
		ProxyFanIn:    clientSide / float64(f.Proxies),
		ProxyFanOut:   backend / float64(f.Proxies),
		DBFanIn:       dbFanIn,
		ClientSide:    clientSide,
		BackendSide:   backend,
		Total:         clientSide + backend,
		ProxiesRegion: perRegion,
	}
}

// reduction is the factor by which the gateway cuts total persistent connections.
func reduction(f Fleet) float64 { return direct(f).Total / gateway(f).Total }

// densityMin and densityMax are the ends of the density range the command
// solves over: every positive density that matters. At densityMin the gateway
// total is its client-side connections to within a float64's precision, and at
// densityMax every proxy of a region owns some replica of each host, so the
// reduction there is its bound at density 0+ and at infinity: a target
// outside [at densityMax, at densityMin] is out of reach at any density.
const (
	densityMin = 1e-300
	densityMax = 1e300
)

// solveDensity finds the shard density at which the model gives the target reduction,
// by bisection: the reduction falls as the density rises. The range is halved on
// a log scale, so that a range of 600 orders of magnitude narrows as fast as one
// of a few. ok is false when the target is out of reach within [lo, hi], and for
// a NaN target, which no density gives.
func solveDensity(f Fleet, target, lo, hi float64) (density float64, ok bool) {
	at := func(s float64) float64 { f.ShardDensity = s; return reduction(f) }
	if !(at(lo) >= target && at(hi) <= target) { // written so that NaN fails it
		return 0, false
	}
	for range 200 {
		mid := math.Sqrt(lo) * math.Sqrt(hi)
		if at(mid) > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Sqrt(lo) * math.Sqrt(hi), true
}
