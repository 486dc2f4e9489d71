#pragma once
// The style sheet and script that output/html_report.cpp inlines into every report page. The
// script reads the plot data (a JSON block, id "vqx-plot-data") and on pointer moves draws a
// cursor at the same frame in every panel and writes each panel's value there (also for the frame
// a "#frame=N" link names); on load it marks
// the page with the number of thumbnails the browser decoded (body data-thumbnails-decoded), so
// a headless browser test can read it from the DOM.

namespace vqx::report_assets {

inline constexpr const char* kStyle = R"CSS(
body { font: 14px/1.4 system-ui, sans-serif; margin: 16px 24px; color: #1d2330; background: #fff; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 20px 0 8px; }
p.run { color: #556; margin: 0 0 8px; }
table.pooled { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 13px; }
table.pooled th, table.pooled td { padding: 2px 8px; border-bottom: 1px solid #dde; text-align: right; }
table.pooled th:first-child, table.pooled td:first-child { text-align: left; }
table.pooled tr.primary td { font-weight: 600; }
div.panel { margin: 0 0 6px; }
div.panel h3 { font-size: 13px; margin: 0; display: flex; gap: 16px; }
div.panel h3 span.readout { font-weight: normal; color: #556; font-variant-numeric: tabular-nums; }
svg.plot { width: 100%; max-width: 1100px; height: auto; display: block; background: #fafbfd; }
svg.plot .line { fill: none; stroke: #2a62c9; stroke-width: 1.4; vector-effect: non-scaling-stroke; }
svg.plot .axis { stroke: #99a; stroke-width: 1; vector-effect: non-scaling-stroke; }
svg.plot .grid { stroke: #e3e6ee; stroke-width: 1; vector-effect: non-scaling-stroke; }
svg.plot text { font-size: 11px; fill: #667; }
svg.plot .cursor { stroke: #d33; stroke-width: 1; visibility: hidden; vector-effect: non-scaling-stroke; }
svg.plot .worst-mark { fill: #d33; }
div.worst { display: flex; flex-wrap: wrap; gap: 14px; }
figure.worst { margin: 0; }
figure.worst div.pair { display: flex; gap: 4px; }
figure.worst img.thumb { display: block; image-rendering: auto; border: 1px solid #ccd; }
figure.worst figcaption { font-size: 12px; color: #333; font-variant-numeric: tabular-nums; }
p.empty { color: #889; }
)CSS";

inline constexpr const char* kScript = R"JS(
(function () {
  const data = JSON.parse(document.getElementById('vqx-plot-data').textContent);
  const svgs = Array.from(document.querySelectorAll('svg.plot'));
  function bucketAt(buckets, frame) {
    let lo = 0, hi = buckets.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (buckets[mid][0] <= frame) lo = mid; else hi = mid - 1;
    }
    const b = buckets[lo], next = buckets[lo + 1];
    if (next && frame > b[1] && next[0] - frame < frame - b[1]) return next;
    return b;
  }
  function show(frame) {
    svgs.forEach(function (svg, i) {
      const panel = data.panels[i], cursor = svg.querySelector('.cursor');
      const readout = svg.parentNode.querySelector('.readout');
      if (!panel.buckets.length) return;
      const b = bucketAt(panel.buckets, frame);
      const x = data.left + (data.frames > 1 ? frame / (data.frames - 1) : 0) * data.width;
      cursor.setAttribute('x1', x); cursor.setAttribute('x2', x);
      cursor.style.visibility = 'visible';
      readout.textContent = b[0] === b[1] ? 'frame ' + b[0] + ': ' + b[2]
          : 'frames ' + b[0] + '\u2013' + b[1] + ': min ' + b[2] + ', max ' + b[3];
    });
  }
  svgs.forEach(function (svg) {
    svg.addEventListener('mousemove', function (e) {
      const box = svg.getBoundingClientRect();
      const x = (e.clientX - box.left) * (data.viewWidth / box.width);
      const t = Math.min(1, Math.max(0, (x - data.left) / data.width));
      show(Math.round(t * Math.max(0, data.frames - 1)));
    });
  });
  // A link to report.html#frame=N opens with the cursor at frame N.
  const linked = /^#frame=(\d+)$/.exec(location.hash);
  if (linked) show(Number(linked[1]));
  window.addEventListener('load', function () {
    const thumbs = Array.from(document.querySelectorAll('img.thumb'));
    document.body.dataset.thumbnailsDecoded =
        thumbs.filter(function (img) { return img.complete && img.naturalWidth > 0; }).length;
    document.body.dataset.plotsDrawn = svgs.filter(function (svg) {
      const line = svg.querySelector('.line');
      return line && line.getTotalLength() > 0;
    }).length;
  });
})();
)JS";

}  // namespace vqx::report_assets
