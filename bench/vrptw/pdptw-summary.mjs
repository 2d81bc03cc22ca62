// The per-size summary of Li & Lim PDPTW results (pdptw.mjs writes it; pdptw-merge.mjs recomputes it
// for results of several runs put together).
const mean = (xs) => (xs.length ? +(xs.reduce((s, x) => s + x, 0) / xs.length).toFixed(3) : null);
export const summarize = (results, sizes) =>
  sizes.map((size) => {
    const rs = results.filter((r) => r.size === size);
    const side = (k) => ({
      feasible: rs.filter((r) => r[k].feasible).length,
      meanDistance: mean(rs.map((r) => r[k].distance)),
      meanGap: mean(rs.map((r) => r[k].gap)),
      meanVehicles: mean(rs.map((r) => r[k].vehicles)),
      meanMs: mean(rs.map((r) => r[k].ms)),
      meanCpuMs: mean(rs.map((r) => r[k].cpuMs).filter((x) => x != null)),
    });
    return {
      size,
      instances: rs.length,
      ours: side('ours'),
      vroom: side('vroom'),
      shorterThanVroom: rs.filter((r) => r.distanceRatio < 1).length,
      tiedWithVroom: rs.filter((r) => r.distanceRatio === 1).length,
      longerThanVroom: rs.filter((r) => r.distanceRatio > 1).length,
      meanDistanceRatio: mean(rs.map((r) => r.distanceRatio)),
      meanTimeRatio: mean(rs.map((r) => r.timeRatio)),
      // Over the instances whose CPU times were recorded (runs before the bench recorded them have none).
      cpuMeasured: rs.filter((r) => r.cpuRatio != null).length,
      meanCpuRatio: mean(rs.map((r) => r.cpuRatio).filter((x) => x != null)),
      bksVehicles: mean(rs.map((r) => r.bksVehicles)),
      meanLoad1: mean(rs.map((r) => r.load1)),
      instanceNames: rs.map((r) => r.instance),
    };
  });
