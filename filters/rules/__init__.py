"""The CDTP alignment rules, one file each, in the order a pair meets them (assembled by
filters.align.cdtp_filters):

* ``length``: no relation name or value longer than an infobox row's;
* ``relation_frequency``: triples of frequent relations only;
* ``grounding``: a triple is kept where the text states it; a pair needs one such triple;
* ``position_index``: the last grounded mention ends past the threshold of the text;
* ``trailing_relation``: no uncovered relation named after the last grounded mention;
* ``enumeration``: every listed item covered by a kept triple."""
