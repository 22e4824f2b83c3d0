// A straight line through (x, y) points by least squares, with how sure we can be of its slope.

/** Two-sided 95% quantile of Student's t with `df` degrees of freedom (table, then 1.96). */
function t95(df) {
  const table = [12.71, 4.3, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23, 2.2, 2.18, 2.16, 2.14, 2.13, 2.12, 2.11, 2.1, 2.09, 2.09];
  if (df < 1) return Infinity;
  if (df <= table.length) return table[df - 1];
  return df <= 30 ? 2.05 : df <= 60 ? 2.0 : 1.98;
}

/**
 * Least-squares fit y = intercept + slope·x. `low`/`high` bound the slope at 95% confidence, so
 * a slope within the noise of a saw-toothed heap is not read as a trend (nor the reverse).
 */
export function linearFit(xs, ys) {
  const n = xs.length;
  if (n < 3) return { n, slope: NaN, intercept: NaN, low: NaN, high: NaN, r2: NaN };
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (xs[i] - mx) ** 2;
    sxy += (xs[i] - mx) * (ys[i] - my);
    syy += (ys[i] - my) ** 2;
  }
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  const residual = Math.max(0, syy - slope * sxy);
  const stderr = Math.sqrt(residual / (n - 2) / sxx);
  const margin = t95(n - 2) * stderr;
  return { n, slope, intercept, low: slope - margin, high: slope + margin, r2: syy === 0 ? 1 : 1 - residual / syy };
}
