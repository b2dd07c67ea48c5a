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
    if (field.name && field.type !== 'hidden' && (field.tagName === 'SELECT' || field.tagName === 'INPUT'))
      field.value = params.get(field.name) ?? '';
  }
});

// == start: the submit and setup forms ==

// Fields a person has left: the live check (hx-post to /submit/validate) names problems only for these.
document.addEventListener(
  'focusout',
  (event) => {
    const field = event.target;
    if (
      !(field instanceof HTMLInputElement || field instanceof HTMLSelectElement || field instanceof HTMLTextAreaElement) ||
      !field.name ||
      !field.form
    )
      return;
    const touched = field.form.querySelector('input[name="_touched"]');
    if (!touched || touched.value === '*') return;
    const names = new Set(touched.value.split(',').filter(Boolean));
    names.add(field.name);
    touched.value = [...names].join(',');
  },
  true,
);

// The live check's problems next to their fields: each listed field gets its message under it (and aria-invalid); the others lose theirs.
function showLiveProblems(check) {
  const form = check.closest('form');
  if (!form) return;
  const problems = new Map(
    [...check.querySelectorAll('li[data-field]')].map((item) => [
      item.getAttribute('data-field'),
      item.querySelector('.problem-text')?.textContent ?? '',
    ]),
  );
  for (const error of form.querySelectorAll('.field .field-error')) error.remove();
  for (const input of form.querySelectorAll('[aria-invalid="true"]')) {
    input.removeAttribute('aria-invalid');
    if (input.getAttribute('aria-describedby') === `${input.id}-error`) input.removeAttribute('aria-describedby');
  }
  for (const [name, text] of problems) {
    const input = form.querySelector(`#f-${CSS.escape(name.replace(/\./g, '-'))}`);
    if (!input) continue;
    const error = document.createElement('p');
    error.className = 'field-error';
    error.id = `${input.id}-error`;
    error.textContent = text;
    input.closest('.field')?.append(error);
    input.setAttribute('aria-invalid', 'true');
    if (!input.hasAttribute('aria-describedby')) input.setAttribute('aria-describedby', error.id);
  }
}
document.addEventListener('htmx:after:swap', () => {
  const check = document.querySelector('#validation.live-check');
  if (!check?.hasAttribute('data-checked')) return;
  showLiveProblems(check);
  // The live check now says what is left to fix: the summary of the refused submission would repeat it.
  document.querySelector('#error-summary')?.remove();
});

// Repeated rows (other GPUs, purchases): without JavaScript every row shows; here the empty ones
// wait behind an "Add" button, and each row can be removed (emptied and hidden).
function setUpRows(root) {
  for (const group of root.querySelectorAll('[data-rows]:not([data-rows-ready])')) {
    group.setAttribute('data-rows-ready', '');
    const rows = [...group.querySelectorAll('[data-row]')];
    const filled = (row) => [...row.querySelectorAll('input, select')].some((input) => input.value.trim() !== '');
    const add = document.createElement('button');
    add.type = 'button';
    add.className = 'small add-row';
    add.textContent = group.getAttribute('data-add-label') || 'Add a row';
    const update = () => {
      add.hidden = rows.every((row) => !row.hidden);
    };
    rows.forEach((row, index) => {
      const remove = document.createElement('button');
      remove.type = 'button';
      remove.className = 'small remove-row';
      remove.textContent = 'Remove';
      remove.setAttribute('aria-label', `Remove row ${index + 1}`);
      remove.addEventListener('click', () => {
        for (const input of row.querySelectorAll('input, select')) input.value = '';
        row.hidden = true;
        update();
        // The live check sees the row gone.
        row.closest('form')?.dispatchEvent(new Event('input', { bubbles: true }));
        add.focus();
      });
      row.append(remove);
      if (!filled(row)) row.hidden = true;
    });
    add.addEventListener('click', () => {
      const next = rows.find((row) => row.hidden);
      if (!next) return;
      next.hidden = false;
      next.querySelector('input, select')?.focus();
      update();
    });
    group.append(add);
    update();
  }
}
setUpRows(document);
document.addEventListener('htmx:after:swap', () => setUpRows(document));
