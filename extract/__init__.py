"""paper-claims: grounded quantitative claims from research-paper abstracts.

Data flows one way: sources -> documents -> mentions -> model labels -> grounded claims
-> table -> exports / report / evaluation.
"""

from extract.api import aextract_claims, extract_claims, extract_quantities, iter_quantities
from extract.errors import ClaimsError
from extract.extractor import Extractor
from extract.settings import Settings
from extract.table import ClaimTable

__all__ = ["ClaimTable", "ClaimsError", "Extractor", "Settings", "aextract_claims", "extract_claims", "extract_quantities", "iter_quantities"]
