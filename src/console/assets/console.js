// Enhancements only: every form and figure works without this file.
'use strict'
document.addEventListener('DOMContentLoaded', () => {
  // Copy buttons: <button data-copy="ID"> copies the text of the element with that id.
  for (const button of document.querySelectorAll('button[data-copy]')) {
    button.hidden = false
    button.addEventListener('click', async () => {
      const source = document.getElementById(button.dataset.copy)
      if (!source) return
      try {
        await navigator.clipboard.writeText(source.textContent.trim())
        button.textContent = 'Copied'
      } catch {
        const range = document.createRange()
        range.selectNodeContents(source)
        const selection = window.getSelection()
        selection.removeAllRanges()
        selection.addRange(range)
        button.textContent = 'Selected: press Ctrl+C'
      }
    })
  }
  // Confirmation for destructive forms (the server asks again on a page of its own without script).
  for (const form of document.querySelectorAll('form[data-confirm]')) {
    form.addEventListener('submit', (event) => {
      if (!window.confirm(form.dataset.confirm)) return event.preventDefault()
      const confirmed = document.createElement('input')
      confirmed.type = 'hidden'
      confirmed.name = 'confirmed'
      confirmed.value = 'yes'
      form.append(confirmed)
    })
  }
  // The usage chart reads the figures from the table it stands beside.
  const table = document.getElementById('usage-days')
  const canvas = document.getElementById('usage-chart')
  if (table && canvas && window.Chart) {
    const rows = [...table.querySelectorAll('tbody tr')]
    const labels = rows.map((r) => r.cells[0].textContent)
    const credits = rows.map((r) => Number(r.cells[1].dataset.value))
    const requests = rows.map((r) => Number(r.cells[2].dataset.value))
    canvas.parentElement.hidden = false
    new window.Chart(canvas, {
      type: 'bar',
      data: {
        labels,
        datasets: [
          { label: 'Credits', data: credits, backgroundColor: '#0b5cad', yAxisID: 'credits' },
          { label: 'Requests', data: requests, type: 'line', borderColor: '#c2410c', backgroundColor: '#c2410c', yAxisID: 'requests', pointRadius: 0 },
        ],
      },
      options: {
        maintainAspectRatio: false,
        animation: false,
        // Credits and requests are whole numbers: no 0.5 on either axis.
        scales: {
          credits: { beginAtZero: true, position: 'left', ticks: { precision: 0 } },
          requests: { beginAtZero: true, position: 'right', grid: { drawOnChartArea: false }, ticks: { precision: 0 } },
        },
      },
    })
  }
})
