// Copy-link buttons: a button with data-copy-from="<input id>" copies that field's value.
// Without JavaScript the button stays hidden and the address stays visible and selectable.
document.addEventListener('DOMContentLoaded', () => {
  for (const button of document.querySelectorAll('button[data-copy-from]')) {
    const field = document.getElementById(button.dataset.copyFrom);
    if (!field) continue;
    const status = button.parentElement.querySelector('[data-copy-status]');
    button.hidden = false;
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(field.value);
        if (status) status.textContent = 'Copied.';
      } catch {
        // Clipboard refused (no permission, insecure context): select the text for a manual copy.
        field.select();
        if (status) status.textContent = 'Press Ctrl+C (or ⌘C) to copy.';
      }
    });
  }
});
