// The report editor's image upload: sends the file to POST /api/reports/images and inserts
// its token where the cursor is in the content; and the run picker's "Insert as card", which
// inserts a run's embed token there. The rest of the editor works without this file.

/** Puts `token` where the cursor is in the content (on lines of its own) and refreshes the preview. */
function insertToken(token) {
  const content = document.getElementById('report-content');
  const at = content.selectionStart ?? content.value.length;
  content.value = `${content.value.slice(0, at)}\n\n${token}\n\n${content.value.slice(content.selectionEnd ?? at)}`;
  content.dispatchEvent(new Event('input', { bubbles: true }));
}

for (const button of document.querySelectorAll('[data-insert-embed]')) {
  button.hidden = false;
  button.addEventListener('click', () => insertToken(button.dataset.insertEmbed));
}
document.addEventListener('submit', async (event) => {
  const form = event.target instanceof HTMLFormElement && event.target.matches('[data-report-image-upload]') ? event.target : null;
  if (!form) return;
  event.preventDefault();
  const status = form.querySelector('[data-report-image-status]');
  const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';
  status.textContent = 'Uploading…';
  try {
    const response = await fetch(form.dataset.api, {
      method: 'POST',
      body: new FormData(form),
      headers: { 'X-CSRF-Token': csrf },
      credentials: 'same-origin',
    });
    const body = await response.json();
    if (!response.ok) {
      const details = body.details?.fieldErrors ? Object.values(body.details.fieldErrors).flat().join(' ') : '';
      status.textContent = `Not uploaded: ${details || body.error}`;
      return;
    }
    insertToken(`[[report-image:${body.id}]]`);
    status.textContent = `Inserted image ${body.width}×${body.height}.`;
    form.reset();
  } catch {
    status.textContent = 'Not uploaded: the server could not be reached.';
  }
});
