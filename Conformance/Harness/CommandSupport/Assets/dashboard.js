// Draws every chart in the data; records each error on the page, where a test reads it.
(function () {
  const charts = JSON.parse(document.getElementById('data').textContent);
  let drawn = 0;
  for (const chart of charts) {
    try {
      const host = document.getElementById(chart.section);
      if (!host) continue;
      const figure = document.createElement('figure');
      const canvas = document.createElement('canvas');
      figure.appendChild(canvas);
      host.appendChild(figure);
      new Chart(canvas, {
        type: chart.kind,
        data: { labels: chart.labels, datasets: chart.series.map((series, index) => ({
          label: series.name, data: series.values, spanGaps: true,
          borderColor: `hsl(${index * 67 % 360} 60% 45%)`, backgroundColor: `hsl(${index * 67 % 360} 60% 60%)`
        })) },
        options: { animation: false, responsive: true,
          plugins: { title: { display: true, text: chart.title } },
          scales: { y: { type: chart.logarithmic ? 'logarithmic' : 'linear', title: { display: true, text: chart.unit } } } }
      });
      drawn += 1;
    } catch (error) { window.dashboardErrors.push(String(error)); }
  }
  document.body.dataset.charts = String(drawn);
  const list = document.getElementById('errors');
  for (const message of window.dashboardErrors) { const item = document.createElement('li'); item.textContent = message; list.appendChild(item); }
  document.body.dataset.errors = String(window.dashboardErrors.length);
})();
