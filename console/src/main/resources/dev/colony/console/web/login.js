import { clean } from './common.js';

const params = new URLSearchParams(location.search);
const error = params.get('error');
const box = document.getElementById('error');
if (error) {
  const known = { token: 'That token is not valid for this console. Try again.' };
  box.textContent = known[error] || clean(error, 400);
  box.classList.remove('hidden');
}
// Where to go back after signing in: only a path on this console.
const next = params.get('next') || '';
const nextInput = document.getElementById('next');
if (next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\')) nextInput.value = next;
else nextInput.remove();
const name = document.getElementById('name');
try {
  const saved = localStorage.getItem('colony.operator');
  if (saved && !name.value) name.value = saved;
} catch (e) { /* storage off */ }
document.querySelector('form').addEventListener('submit', () => {
  try { localStorage.setItem('colony.operator', name.value); } catch (e) { /* storage off */ }
});
document.getElementById(name.value ? 'token' : 'token').focus();
