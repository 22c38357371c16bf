// Starts the web client: the sign-in form, or the app when the page came
// with a session (the server put its CSRF token in a <meta> tag).
import { render } from 'preact';
import { csrf } from './api';
import { App } from './App';
import './style.css';
import { state } from './store';

state.signedIn = csrf() !== '';
render(<App />, document.getElementById('app')!);
