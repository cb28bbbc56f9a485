package main

// Lena: a neuroscience PhD student in Zurich who plays the violin.
var lenaSessions = []msession{
	{person: "lena", date: "2026-09-04 22:10", pairs: []pair{
		p("lena.thesis", "My thesis is on sleep spindles and memory consolidation, the deadline is March 2027", "That's a focused topic. How far along are you?"),
		p("lena.supervisor", "three chapters drafted. My supervisor, Professor Keller, wants the methods chapter by December", "Let's plan backwards from December."),
	}},
	{person: "lena", date: "2026-09-14 19:00", pairs: []pair{
		p("lena.orchestra", "I joined the university orchestra as a second violin, rehearsals on Wednesday nights", "Lovely! What are you playing this term?"),
		p("lena.concert", "Dvořák's 8th symphony, the concert is on November 22 at the Tonhalle", "A wonderful piece."),
	}},
	{person: "lena", date: "2026-09-22 12:30", pairs: []pair{
		p("lena.grant", "Submitting a grant application to the Swiss National Science Foundation, deadline October 1", "Good luck. Want help with the abstract?"),
		p("", "yes please, it's 200 words max", "Share the draft and I'll tighten it."),
	}},
	{person: "lena", date: "2026-10-02 09:40", pairs: []pair{
		p("lena.grantsent", "Grant submitted yesterday, 30 minutes before the deadline!", "Well done."),
		p("lena.paperreject", "and bad news: the spindle paper got rejected from Neuron, reviewer 2 wanted more subjects", "Sorry. Consider revising for another journal."),
	}},
	{person: "lena", date: "2026-10-09 18:00", pairs: []pair{
		p("lena.cat", "My roommate Jonas and I adopted a kitten, a grey one called Mochi", "Cute! How old?"),
		p("", "ten weeks, she attacks my feet at night", "Normal kitten behaviour; play with her before bed."),
	}},
	{person: "lena", date: "2026-10-18 20:20", pairs: []pair{
		p("lena.covid", "I tested positive for COVID, stuck at home for the week", "Rest and drink a lot. Do you need anything?"),
		p("lena.resubmit", "at least I can work on the paper: resubmitting to the Journal of Neuroscience with 12 more subjects", "Good plan."),
	}},
	{person: "lena", date: "2026-10-30 10:15", pairs: []pair{
		p("lena.sfn", "Flying to Chicago for the SfN conference, November 8 to 12, presenting a poster on Monday", "Exciting. Prepare a 2-minute pitch for the poster."),
		p("lena.vegetarian", "any vegetarian places near McCormick Place? I don't eat meat or fish", "Check the conference guide; there are several near the Loop."),
	}},
	{person: "lena", date: "2026-11-13 23:00", pairs: []pair{
		p("lena.sfndone", "SfN was amazing, a postdoc from Stanford asked about collaborating on the spindle data", "That's a great outcome."),
		p("lena.jetlag", "but the jet lag is killing me", "Get daylight in the morning."),
	}},
	{person: "lena", date: "2026-11-24 08:50", pairs: []pair{
		p("lena.concertdone", "The Dvořák concert went really well, my parents came from Munich to listen", "Wonderful!"),
		p("lena.methods", "now back to the methods chapter, Keller moved the deadline to December 15", "Two and a half weeks — let's make a plan."),
	}},
}

// Raj: he owns a bakery in Leicester.
var rajSessions = []msession{
	{person: "raj", date: "2026-09-03 06:30", pairs: []pair{
		p("raj.bakery", "I run a small bakery in Leicester called Crumb & Co, we open at 7", "Early mornings! How can I help?"),
		p("raj.oven", "we just bought a new combi oven, a Rational iCombi, it cost 8,400 pounds", "A big investment. Do you want a maintenance schedule?"),
	}},
	{person: "raj", date: "2026-09-14 15:10", pairs: []pair{
		p("raj.asha", "Hired a new baker today, Asha, she starts on Monday, four days a week", "Great. Plan her first week's training."),
		p("raj.starter", "she'll take over the sourdough. Our starter is called Clint, he's 9 years old", "Ha, Clint deserves a careful handover."),
	}},
	{person: "raj", date: "2026-09-25 20:45", pairs: []pair{
		p("raj.price", "I'm raising the croissant price from 2.20 to 2.60 on October 1, butter costs went up 30%", "Put a short honest note by the till."),
		p("", "how do I word it?", "\"Butter prices rose sharply this year, so from 1 October croissants are £2.60. Thank you for supporting a local bakery.\""),
	}},
	{person: "raj", date: "2026-10-04 19:30", pairs: []pair{
		p("raj.flour", "switched flour supplier to Shipton Mill, the old one kept delivering late", "Test a few batches; hydration may change."),
		p("raj.weddingcake", "also we got a big order: a three-tier wedding cake for the Patel wedding on October 24", "Plan the bake and assembly days."),
	}},
	{person: "raj", date: "2026-10-15 21:10", pairs: []pair{
		p("raj.nottingham", "I'm thinking of opening a second shop in Nottingham next spring", "Let's look at the numbers first."),
		p("raj.accountant", "my accountant Meera says I need six months of cash reserves first", "Sensible advice."),
	}},
	{person: "raj", date: "2026-10-25 22:00", pairs: []pair{
		p("raj.cakedone", "The Patel wedding cake was a hit, they want us for their cousin's engagement in January", "Fantastic!"),
		p("raj.arjun", "tired though, and my son Arjun had a football tournament the same morning, I missed it", "Maybe catch the next match."),
	}},
	{person: "raj", date: "2026-11-06 07:15", pairs: []pair{
		p("raj.lease", "The landlord wants to raise the rent by 12% when the lease renews in January", "Ask for a longer lease in exchange for a smaller increase."),
		p("raj.revenue", "October revenue was 31,500 pounds, best month ever", "Great month."),
	}},
	{person: "raj", date: "2026-11-18 16:40", pairs: []pair{
		p("raj.inspection", "We got a 5 star food hygiene rating at the inspection on Monday!", "Congratulations, put the sticker in the window."),
		p("raj.christmas", "next: Christmas orders. We'll do stollen and mince pies, pre-orders from December 1", "Set a cut-off date for pre-orders."),
	}},
}

// questions are asked weeks after the sessions.
var questions = []question{
	{"mq01", "maya", "2026-11-28 09:00", "single", "What's my dog's name?", "Biscuit", []string{"maya.dog"}},
	{"mq02", "maya", "2026-11-28 09:00", "single", "What kind of food does Biscuit eat?", "salmon kibble", []string{"maya.dogfood"}},
	{"mq03", "maya", "2026-11-28 09:00", "temporal", "When did we adopt Biscuit?", "5 September 2026", []string{"maya.dog"}},
	{"mq04", "maya", "2026-11-28 09:00", "single", "Where do I take Portuguese lessons?", "Instituto Camões, Tuesdays", []string{"maya.portuguese"}},
	{"mq05", "maya", "2026-11-28 09:00", "single", "What am I allergic to?", "shellfish", []string{"maya.allergy"}},
	{"mq06", "maya", "2026-11-28 09:00", "temporal", "When did I actually move to Lisbon in the end?", "1 November (pushed back from 15 October)", []string{"maya.movedelay"}},
	{"mq07", "maya", "2026-11-28 09:00", "single", "How much is the rent of my new flat and in which neighbourhood is it?", "1,650 euros, Alfama", []string{"maya.flat"}},
	{"mq08", "maya", "2026-11-28 09:00", "multi", "Which company did I join and how much did I negotiate my salary up from?", "Tiller, 78k to 84k", []string{"maya.job", "maya.salary"}},
	{"mq09", "maya", "2026-11-28 09:00", "temporal", "How many days after moving did I start the new job?", "one day (1 Nov move, 2 Nov start)", []string{"maya.movedelay", "maya.job"}},
	{"mq10", "maya", "2026-11-28 09:00", "single", "How much did I sell my car for?", "6,200 euros", []string{"maya.car"}},
	{"mq11", "maya", "2026-11-28 09:00", "multi", "What did the vet in Lisbon say about my dog's weight, and what's the clinic called?", "2 kg overweight; Clínica do Castelo", []string{"maya.vet", "maya.vetresult"}},
	{"mq12", "maya", "2026-11-28 09:00", "temporal", "When was my sister's wedding and where?", "10 October, Porto", []string{"maya.wedding"}},
	{"mq13", "maya", "2026-11-28 09:00", "multi", "How did Biscuit travel to Portugal and on what day did the moving van go?", "by car with Maya; van on 31 October", []string{"maya.dogtravel", "maya.van"}},
	{"mq14", "maya", "2026-11-28 09:00", "single", "Which team am I on at work?", "payments", []string{"maya.firstweek"}},
	{"mq15", "maya", "2026-11-28 09:00", "temporal", "What did I start doing last week with the dog in the mornings?", "running 5 km along the river", []string{"maya.running"}},

	{"tq01", "tom", "2026-11-25 20:00", "single", "What was my finishing time at York?", "3:52", []string{"tom.marathonresult"}},
	{"tq02", "tom", "2026-11-25 20:00", "multi", "What time was I aiming for at York and did I make it?", "under 3:45; no, 3:52", []string{"tom.marathon", "tom.marathonresult"}},
	{"tq03", "tom", "2026-11-25 20:00", "single", "What does my daughter study and where?", "chemistry in Manchester", []string{"tom.ella"}},
	{"tq04", "tom", "2026-11-25 20:00", "single", "What's wrong with my knee?", "IT band pain, outside of the left knee", []string{"tom.knee"}},
	{"tq05", "tom", "2026-11-25 20:00", "single", "What's my physio's name?", "Gareth", []string{"tom.physio"}},
	{"tq06", "tom", "2026-11-25 20:00", "single", "Which book was my book club reading?", "The Remains of the Day", []string{"tom.bookclub"}},
	{"tq07", "tom", "2026-11-25 20:00", "temporal", "When did I plant the garlic?", "1 October 2026", []string{"tom.garlic"}},
	{"tq08", "tom", "2026-11-25 20:00", "single", "What happened to my tomatoes this year?", "blight; pulled them", []string{"tom.blight"}},
	{"tq09", "tom", "2026-11-25 20:00", "single", "What bike did I buy and how much did it cost?", "second-hand Trek Domane, £650", []string{"tom.bike"}},
	{"tq10", "tom", "2026-11-25 20:00", "multi", "Where was Claire's surprise party and who baked the cake?", "Cross Keys pub; Ella (lemon drizzle)", []string{"tom.party", "tom.cake"}},
	{"tq11", "tom", "2026-11-25 20:00", "temporal", "How old did my wife turn this month, and on which day?", "50, 14 November", []string{"tom.claire"}},
	{"tq12", "tom", "2026-11-25 20:00", "single", "Where is the year 12 trip going and how many students?", "Berlin, 28 students", []string{"tom.trip"}},
	{"tq13", "tom", "2026-11-25 20:00", "single", "What's my next race?", "Manchester marathon in April", []string{"tom.nextrace"}},
	{"tq14", "tom", "2026-11-25 20:00", "temporal", "Which happened first, Ella moving to university or the York marathon?", "Ella moved first (10 September)", []string{"tom.ella", "tom.marathonresult"}},
	{"tq15", "tom", "2026-11-25 20:00", "single", "Which year groups do I teach and what subject?", "year 10 and 12 history", []string{"tom.school"}},

	{"lq01", "lena", "2026-11-30 10:00", "single", "What's my thesis about?", "sleep spindles and memory consolidation", []string{"lena.thesis"}},
	{"lq02", "lena", "2026-11-30 10:00", "temporal", "When is the methods chapter due now?", "15 December (moved from December)", []string{"lena.methods"}},
	{"lq03", "lena", "2026-11-30 10:00", "single", "Which piece did the orchestra play at the concert?", "Dvořák's 8th symphony", []string{"lena.concert"}},
	{"lq04", "lena", "2026-11-30 10:00", "single", "Which instrument do I play in the orchestra, and which night do we rehearse?", "second violin, Wednesdays", []string{"lena.orchestra"}},
	{"lq05", "lena", "2026-11-30 10:00", "temporal", "When did I submit the grant application?", "30 September/1 October, just before the deadline", []string{"lena.grantsent"}},
	{"lq06", "lena", "2026-11-30 10:00", "multi", "Which journal rejected my spindle paper and where did I resubmit it?", "Neuron; Journal of Neuroscience", []string{"lena.paperreject", "lena.resubmit"}},
	{"lq07", "lena", "2026-11-30 10:00", "single", "What's my kitten called?", "Mochi", []string{"lena.cat"}},
	{"lq08", "lena", "2026-11-30 10:00", "single", "Who is my roommate?", "Jonas", []string{"lena.cat"}},
	{"lq09", "lena", "2026-11-30 10:00", "temporal", "When did I have COVID?", "the week of 18 October", []string{"lena.covid"}},
	{"lq10", "lena", "2026-11-30 10:00", "multi", "Which conference did I go to in November and who wanted to collaborate afterwards?", "SfN in Chicago; a Stanford postdoc", []string{"lena.sfn", "lena.sfndone"}},
	{"lq11", "lena", "2026-11-30 10:00", "single", "What do I not eat?", "meat or fish (vegetarian)", []string{"lena.vegetarian"}},
	{"lq12", "lena", "2026-11-30 10:00", "single", "Who came to listen to my concert?", "her parents from Munich", []string{"lena.concertdone"}},
	{"lq13", "lena", "2026-11-30 10:00", "temporal", "How many subjects did I add to the paper after the rejection, and when did I decide that?", "12, around 18 October", []string{"lena.resubmit"}},
	{"lq14", "lena", "2026-11-30 10:00", "single", "Who is my supervisor?", "Professor Keller", []string{"lena.supervisor"}},

	{"rq01", "raj", "2026-11-26 21:00", "single", "How much did the new oven cost?", "£8,400", []string{"raj.oven"}},
	{"rq02", "raj", "2026-11-26 21:00", "multi", "Who did I hire and what will she be responsible for?", "Asha; the sourdough", []string{"raj.asha", "raj.starter"}},
	{"rq03", "raj", "2026-11-26 21:00", "single", "What's the name of our sourdough starter?", "Clint", []string{"raj.starter"}},
	{"rq04", "raj", "2026-11-26 21:00", "temporal", "When did the croissant price go up, and to how much?", "1 October, £2.60", []string{"raj.price"}},
	{"rq05", "raj", "2026-11-26 21:00", "single", "Which flour supplier do we use now?", "Shipton Mill", []string{"raj.flour"}},
	{"rq06", "raj", "2026-11-26 21:00", "temporal", "When was the Patel wedding cake due?", "24 October", []string{"raj.weddingcake"}},
	{"rq07", "raj", "2026-11-26 21:00", "multi", "Where do I want to open a second shop, and what did my accountant say about it?", "Nottingham; six months of cash reserves first", []string{"raj.nottingham", "raj.accountant"}},
	{"rq08", "raj", "2026-11-26 21:00", "single", "What did I miss because of the wedding cake?", "Arjun's football tournament", []string{"raj.arjun"}},
	{"rq09", "raj", "2026-11-26 21:00", "single", "How much does the landlord want to raise the rent?", "12% at the January renewal", []string{"raj.lease"}},
	{"rq10", "raj", "2026-11-26 21:00", "single", "What was our revenue in October?", "£31,500", []string{"raj.revenue"}},
	{"rq11", "raj", "2026-11-26 21:00", "temporal", "What hygiene rating did we get last week?", "5 stars", []string{"raj.inspection"}},
	{"rq12", "raj", "2026-11-26 21:00", "single", "What are we selling for Christmas and when do pre-orders open?", "stollen and mince pies; 1 December", []string{"raj.christmas"}},
	{"rq13", "raj", "2026-11-26 21:00", "single", "Why did I raise the croissant price and by how much did butter go up?", "butter costs, up 30%", []string{"raj.price"}},
	{"rq14", "raj", "2026-11-26 21:00", "temporal", "What happened at the bakery in the last week of October?", "the Patel wedding cake (25 Oct): a hit", []string{"raj.cakedone"}},
	{"mq16", "maya", "2026-11-28 09:00", "multi", "What's my sister called and what did I do at her wedding?", "Inês; gave a speech", []string{"maya.wedding", "maya.weddingdone"}},
	{"mq17", "maya", "2026-11-28 09:00", "multi", "Describe the new flat and the day we moved in", "two-bedroom in Alfama with a terrace; 1 November", []string{"maya.flat", "maya.movedelay"}},
	{"tq16", "tom", "2026-11-25 20:00", "multi", "How did my knee do in the marathon, and who has been treating it?", "held up; Gareth the physio", []string{"tom.marathonresult", "tom.physio"}},
	{"lq15", "lena", "2026-11-30 10:00", "multi", "Where did my parents travel from for the concert and what did we play?", "Munich; Dvořák 8", []string{"lena.concertdone", "lena.concert"}},
	{"rq15", "raj", "2026-11-26 21:00", "multi", "How many days a week does the new baker work, and which oven did we buy this autumn?", "four days; a Rational iCombi", []string{"raj.asha", "raj.oven"}},
}

// nearMisses are each person's other sessions: about the same subjects
// (dogs, running, music, baking) without the facts the questions ask for.
var nearMisses = []msession{
	{person: "maya", date: "2026-09-08 19:00", pairs: []pair{
		p("", "how do I stop a dog pulling on the lead?", "Stop walking whenever the lead goes tight, reward him when it's loose."),
		p("", "what about other dogs, he barks at them", "Keep distance, reward calm looks, and build up slowly.")}},
	{person: "maya", date: "2026-09-30 20:10", pairs: []pair{
		p("", "what are typical rents in Lisbon right now?", "Very roughly 1,200–2,000 euros for a two-bedroom in central areas, depending on the neighbourhood."),
		p("", "is Alfama noisy at night?", "It can be during the summer festivals, especially around Santo António in June.")}},
	{person: "maya", date: "2026-10-07 12:00", pairs: []pair{
		p("", "explain the Portuguese past tenses, pretérito perfeito vs imperfeito", "Perfeito for completed actions, imperfeito for ongoing or habitual past."),
		p("", "give me five example sentences", "Ontem comi peixe. Quando era criança, comia muito peixe…")}},
	{person: "maya", date: "2026-10-24 18:30", pairs: []pair{
		p("", "what should I ask in my first one-on-one with a new manager?", "Ask about expectations for the first 90 days, how they like updates, and what success looks like."),
		p("", "and how do I ramp up on a big codebase fast?", "Read the architecture docs, pair with teammates, and fix a small bug in the first week.")}},
	{person: "maya", date: "2026-11-02 22:00", pairs: []pair{
		p("", "best way to unpack after a move without losing my mind?", "One room at a time, kitchen and bedroom first, and break down boxes as you go."),
		p("", "where do I recycle cardboard in Lisbon?", "Use the blue ecoponto bins; large amounts can go to the municipal collection.")}},
	{person: "maya", date: "2026-11-15 09:30", pairs: []pair{
		p("", "how many calories should a 12 kg dog eat?", "Roughly 600–700 kcal a day, depending on activity; check the food's label."),
		p("", "are carrots ok as treats?", "Yes, in small pieces.")}},
	{person: "tom", date: "2026-09-06 19:20", pairs: []pair{
		p("", "which running shoes are good for long distances?", "Cushioned daily trainers; try several in a running shop and replace them every 500 miles."),
		p("", "what about carbon plate shoes for race day?", "They help many runners, but do a long run in them first.")}},
	{person: "tom", date: "2026-09-29 21:00", pairs: []pair{
		p("", "how should I taper before a marathon?", "Reduce volume by about 40–60% over the last two to three weeks, keep some pace work."),
		p("", "and carb loading?", "About 8–10 g of carbs per kg body weight in the last two days.")}},
	{person: "tom", date: "2026-10-06 18:00", pairs: []pair{
		p("", "what can I still sow at the allotment in October?", "Broad beans, onion sets, garlic, and green manure."),
		p("", "how do I protect brassicas from pigeons?", "Net them on a frame so the net doesn't touch the leaves.")}},
	{person: "tom", date: "2026-10-22 20:40", pairs: []pair{
		p("", "give me ideas for a 50th birthday present for someone who has everything", "An experience: a weekend away, a cookery class, a concert, or a photo book of the years."),
		p("", "and a speech opener?", "Start with a short funny story only you could tell.")}},
	{person: "tom", date: "2026-11-09 19:15", pairs: []pair{
		p("", "how do I teach the causes of the First World War to year 10 in an engaging way?", "Use the MAIN acronym with a role-play of the July crisis."),
		p("", "a homework idea?", "Ask them to rank the causes and justify the top one.")}},
	{person: "tom", date: "2026-11-20 07:00", pairs: []pair{
		p("", "what's a good winter base training plan?", "Mostly easy miles, one long run, strides, and strength work twice a week."),
		p("", "is cycling good cross-training for running?", "Yes, it builds aerobic fitness with less impact.")}},
	{person: "lena", date: "2026-09-10 21:00", pairs: []pair{
		p("", "what's the difference between slow-wave sleep and REM?", "Slow-wave sleep has large slow oscillations; REM has fast, low-amplitude activity and dreaming."),
		p("", "and what are K-complexes?", "Large single waves in stage 2 sleep, often with spindles.")}},
	{person: "lena", date: "2026-09-28 16:00", pairs: []pair{
		p("", "tips for practising the violin with little time?", "Short focused sessions, slow practice with a metronome, and work on the hardest bars first."),
		p("", "how do I stop my bow from shaking when nervous?", "Breathe out slowly, keep the bow arm relaxed, and play long slow bows every day.")}},
	{person: "lena", date: "2026-10-12 14:00", pairs: []pair{
		p("", "how do I respond to harsh reviewer comments?", "Thank them, answer every point, show what changed, and stay polite even when you disagree."),
		p("", "how long should a cover letter to the editor be?", "One page is enough.")}},
	{person: "lena", date: "2026-10-26 19:30", pairs: []pair{
		p("", "what do kittens need at the vet in their first months?", "Vaccinations, deworming, a check-up, and later neutering."),
		p("", "is it ok to give milk?", "No, most cats are lactose intolerant; give water.")}},
	{person: "lena", date: "2026-11-04 12:00", pairs: []pair{
		p("", "how do I design a good conference poster?", "A clear title, one key figure, few words, and a QR code to the paper."),
		p("", "what size is usual?", "A0 portrait is common; check the conference rules.")}},
	{person: "lena", date: "2026-11-27 22:30", pairs: []pair{
		p("", "how do I structure a methods chapter?", "Participants, materials, procedure, recordings, analysis, statistics — enough for someone to replicate it."),
		p("", "should I include pilot studies?", "Briefly, if they shaped the design.")}},
	{person: "raj", date: "2026-09-09 21:30", pairs: []pair{
		p("", "why is my sourdough so dense?", "Usually underproofed or a weak starter; check the dough grows 50–75% in bulk."),
		p("", "what hydration should I use for a country loaf?", "Around 70–75% to start.")}},
	{person: "raj", date: "2026-09-20 20:00", pairs: []pair{
		p("", "how do I price wedding cakes?", "Ingredients plus labour hours times your rate, plus design and delivery, then check local prices."),
		p("", "how far in advance should I take a deposit?", "At booking, usually 25–50%.")}},
	{person: "raj", date: "2026-10-10 19:00", pairs: []pair{
		p("", "how do I write a job ad for a part-time baker?", "Say the hours, the start time, the pay and what they'll bake; keep it short."),
		p("", "what interview questions should I ask?", "Ask them to describe their usual bake schedule and do a trial shift.")}},
	{person: "raj", date: "2026-10-30 21:15", pairs: []pair{
		p("", "what does a cash flow forecast for a small shop look like?", "Monthly cash in and out for 12 months, with the opening and closing balance."),
		p("", "how do I account for seasonal months?", "Use last year's months as a guide and add a buffer.")}},
	{person: "raj", date: "2026-11-12 06:45", pairs: []pair{
		p("", "how do I prepare for a food hygiene inspection?", "Check records (temperatures, cleaning, allergens), staff training, and pest control."),
		p("", "what are the allergen rules in the UK?", "Tell customers about the 14 major allergens; prepacked food needs full labels (Natasha's Law).")}},
	{person: "raj", date: "2026-11-22 20:30", pairs: []pair{
		p("", "a good stollen recipe for a bakery batch?", "Enriched dough with butter, soaked fruit and a marzipan log, rested overnight, then dusted with sugar."),
		p("", "how long does it keep?", "Two to three weeks wrapped well.")}},
}
