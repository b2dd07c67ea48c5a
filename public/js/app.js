// Small progressive enhancements; every page works without this file.
document.addEventListener('click', async (event) => {
  const button = event.target instanceof Element ? event.target.closest('button.copy[data-copy-target]') : null;
  if (!button) return;
  const source = document.querySelector(button.getAttribute('data-copy-target'));
  if (!source) return;
  try {
    await navigator.clipboard.writeText(source.textContent.trim());
    button.textContent = 'Copied';
  } catch {
    // Clipboard access can be refused (insecure context); select the text for a manual copy.
    const range = document.createRange();
    range.selectNodeContents(source);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    button.textContent = 'Press Ctrl+C';
  }
});

// The leaderboard's links in its results (views, pages, ranking) change the filters
// outside the form: keep the form's fields in step, so the next filter change keeps them.
document.addEventListener('click', (event) => {
  const link = event.target instanceof Element ? event.target.closest('#results a[hx-get]') : null;
  const form = document.getElementById('leaderboard-filters');
  if (!link || !form) return;
  const params = new URL(link.href).searchParams;
  for (const field of form.elements) {
    if (field.name && field.type !== 'hidden' && (field.tagName === 'SELECT' || field.tagName === 'INPUT')) field.value = params.get(field.name) ?? '';
  }
});
