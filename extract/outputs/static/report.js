(function(){
  var boxes=[].slice.call(document.querySelectorAll('input.kind-filter'));
  var empty=document.getElementById('show-empty');
  var search=document.getElementById('search');
  var shown=document.getElementById('shown');
  var docs=[].slice.call(document.querySelectorAll('article.doc'));
  function apply(){
    var on={};boxes.forEach(function(b){if(b.checked)on[b.value]=true;});
    var term=search.value.trim().toLowerCase();var n=0;
    docs.forEach(function(d){
      var kinds=(d.getAttribute('data-kinds')||'').split(' ').filter(Boolean);
      var ok=kinds.length?kinds.some(function(k){return on[k];}):empty.checked;
      if(ok&&term){ok=d.getAttribute('data-search').indexOf(term)>=0||d.textContent.toLowerCase().indexOf(term)>=0;}
      d.hidden=!ok;if(ok)n++;
      d.querySelectorAll('mark.claim').forEach(function(m){m.classList.toggle('off',!on[m.getAttribute('data-kind')]);});
    });
    shown.textContent=n+' of '+docs.length+' documents shown';
  }
  boxes.concat([empty]).forEach(function(b){b.addEventListener('change',apply);});
  search.addEventListener('input',apply);
  apply();
})();
