// The language names Zulip records in a code block's data-code-language: the
// name of the Pygments lexer a fence's language selects. Languages not listed
// here keep the (lowercased) name the sender wrote, as Zulip does for
// languages it does not know.

const PYGMENTS_NAMES: Record<string, string> = {
  bash: 'Bash', sh: 'Bash', shell: 'Bash', zsh: 'Bash', ksh: 'Bash',
  c: 'C', h: 'C',
  'c++': 'C++', cpp: 'C++', cxx: 'C++', hpp: 'C++',
  'c#': 'C#', csharp: 'C#', cs: 'C#',
  clojure: 'Clojure', clj: 'Clojure',
  console: 'Bash Session', 'shell-session': 'Bash Session',
  css: 'CSS',
  diff: 'Diff', patch: 'Diff', udiff: 'Diff',
  docker: 'Docker', dockerfile: 'Docker',
  elixir: 'Elixir', ex: 'Elixir', exs: 'Elixir',
  erlang: 'Erlang',
  go: 'Go', golang: 'Go',
  graphql: 'GraphQL',
  haskell: 'Haskell', hs: 'Haskell',
  html: 'HTML', xhtml: 'HTML', htm: 'HTML',
  ini: 'INI', cfg: 'INI', dosini: 'INI',
  java: 'Java',
  javascript: 'JavaScript', js: 'JavaScript',
  json: 'JSON',
  jsx: 'JSX',
  kotlin: 'Kotlin', kt: 'Kotlin',
  latex: 'TeX', tex: 'TeX',
  lua: 'Lua',
  make: 'Makefile', makefile: 'Makefile', mf: 'Makefile',
  markdown: 'Markdown', md: 'Markdown',
  'objective-c': 'Objective-C', objc: 'Objective-C', objectivec: 'Objective-C',
  perl: 'Perl', pl: 'Perl',
  php: 'PHP',
  powershell: 'PowerShell', ps1: 'PowerShell', pwsh: 'PowerShell',
  py: 'Python', python: 'Python', python3: 'Python', py3: 'Python',
  py2: 'Python 2.x', python2: 'Python 2.x',
  r: 'R', splus: 'R',
  rb: 'Ruby', ruby: 'Ruby',
  rs: 'Rust', rust: 'Rust',
  scala: 'Scala',
  scss: 'SCSS',
  sql: 'SQL',
  swift: 'Swift',
  text: 'Text only', txt: 'Text only',
  toml: 'TOML',
  ts: 'TypeScript', typescript: 'TypeScript',
  tsx: 'TSX',
  xml: 'XML',
  yaml: 'YAML', yml: 'YAML',
};

/** The data-code-language value for a fence written with `lang` (already lowercased). */
export function codeLanguageName(lang: string): string {
  return Object.hasOwn(PYGMENTS_NAMES, lang) ? PYGMENTS_NAMES[lang] : lang;
}
