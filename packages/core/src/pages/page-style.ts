/**
 * The stylesheet of the pages behind links (vendor, ticket, door): readable on a 360 px phone
 * without sideways scrolling, large touch targets, visible focus, and colours that keep a 4.5:1
 * contrast. Inlined in each page and allowed by its hash, so a page loads nothing else.
 */
export const PAGE_STYLE = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f23;background:#f6f7f5}
main{max-width:40rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;line-height:1.25;margin:.5rem 0 1rem;overflow-wrap:anywhere}
h2{font-size:1.2rem;margin:1.5rem 0 .5rem;overflow-wrap:anywhere}
p,li,dd,dt,td,th,label,legend{overflow-wrap:anywhere}
section,.card{background:#fff;border:1px solid #d5d9d3;border-radius:8px;padding:1rem;margin:0 0 1rem}
dl{display:grid;grid-template-columns:minmax(6rem,max-content) 1fr;gap:.25rem 1rem;margin:0}
dt{font-weight:600;color:#444}
dd{margin:0}
form{margin:0}
fieldset{border:1px solid #d5d9d3;border-radius:6px;padding:.75rem;margin:0 0 1rem;min-width:0}
legend{font-weight:600;padding:0 .25rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
label.inline{display:flex;gap:.5rem;align-items:center;font-weight:400}
input,select,textarea{font:inherit;width:100%;max-width:100%;padding:.5rem;border:1px solid #767676;border-radius:4px;background:#fff;color:inherit}
input[type=checkbox],input[type=radio]{width:auto}
textarea{min-height:4rem}
button,.button{display:inline-block;font:inherit;font-weight:600;padding:.6rem 1.1rem;margin:.75rem .5rem 0 0;border:0;border-radius:6px;background:#1f6f43;color:#fff;text-decoration:none;cursor:pointer;min-height:2.75rem}
button.secondary,.button.secondary{background:#e8ebe6;color:#1b1f23;border:1px solid #767676}
button.danger{background:#a3261b}
:focus-visible{outline:3px solid #1a5fb4;outline-offset:2px}
.notice{border-left:4px solid #1f6f43;background:#e9f5ee;padding:.75rem 1rem;margin:0 0 1rem}
.error{border-left:4px solid #a3261b;background:#fbeceb;padding:.75rem 1rem;margin:0 0 1rem}
.muted{color:#555}
.status{display:inline-block;padding:.1rem .5rem;border-radius:4px;background:#e8ebe6;font-weight:600}
.code{font:600 1.25rem/1.2 ui-monospace,SFMono-Regular,Menlo,monospace;letter-spacing:.05em}
img.qr{display:block;width:100%;max-width:16rem;height:auto;margin:.5rem 0;image-rendering:pixelated}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.4rem .25rem;border-bottom:1px solid #e1e4df;vertical-align:top}
.actions{display:flex;flex-wrap:wrap;gap:0 .5rem}
.actions form{display:inline}
h3{font-size:1.05rem;margin:0 0 .25rem;overflow-wrap:anywhere}
.quantity{display:flex;gap:.5rem;align-items:center}
.quantity input{flex:1 1 auto;min-width:0}
.unit{white-space:nowrap}
[aria-invalid=true]{border:2px solid #a3261b}
.records{list-style:none;padding:0;margin:0}
.records li{border-top:1px solid #e1e4df;padding:.75rem 0}
.records li:first-child{border-top:0}
.records p{margin:0 0 .5rem}
.hint{margin:.25rem 0 0;font-size:.9rem}
.count{font-size:1.25rem;font-weight:600;margin:0 0 1rem}
.result{border-radius:8px;padding:0;margin:0 0 1rem;min-height:1rem}
.result p{margin:0}
.result-ok,.result-warn,.result-stop{padding:1rem}
.result-ok{background:#1f6f43;color:#fff}
.result-warn{background:#ffd866;color:#1b1f23;border:3px solid #8a5a00}
.result-stop{background:#a3261b;color:#fff}
.result-words{font-size:1.75rem;font-weight:700;line-height:1.2;overflow-wrap:anywhere}
.result-person{font-size:1.25rem;margin-top:.25rem!important}
.result-name{font-weight:600}
#camera video{display:block;width:100%;max-width:100%;margin:.75rem 0 0;background:#000}
[hidden]{display:none!important}
@media (max-width:30rem){dl{grid-template-columns:1fr;gap:0}dd{margin:0 0 .5rem}}
`;
